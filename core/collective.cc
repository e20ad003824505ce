#include "core/collective.h"

#include "core/error.h"

namespace strata {

// Reached only when a communicator said no to reduces_cuda_memory and was called anyway.
void Collective::start_cuda_all_reduce(float*, std::int64_t, void*) {
  throw Error("this communicator does not sum GPU memory: stage the buffer through host memory");
}

void Collective::wait_cuda_all_reduce(float*, void*) {
  throw Error("this communicator does not sum GPU memory: stage the buffer through host memory");
}

}  // namespace strata
