// Collective: the communication a data-parallel train step's graph nodes call
// (all_reduce_start / all_reduce_wait, core/ops/collective_ops.h). core defines only this
// interface; distribution/ implements it over MPI, and over NCCL for GPU memory
// (distribution/communicator.h), so the engine knows nothing of any transport. A Program
// is given one through RunOptions::collective; a collective op run without one throws.
#pragma once

#include <cstdint>

namespace strata {

class Collective {
 public:
  virtual ~Collective() = default;
  // Starts summing `count` floats at `data` (host memory) over every process, in place,
  // and returns at once: the rest of the step runs while the sum travels. `data` must
  // stay valid and untouched until wait_all_reduce(data) returns.
  virtual void start_all_reduce(float* data, std::int64_t count) = 0;
  // Blocks until the all-reduce started on `data` has completed. Throws strata::Error
  // when it failed or did not complete in the communicator's time limit.
  virtual void wait_all_reduce(float* data) = 0;

  // GPU memory, for the CUDA kernels of the all-reduce ops (core/cuda/collective_kernels.h).
  // Whether this communicator sums the memory of CUDA device `device` itself, on the
  // device's streams (NCCL). When it does not, the kernels copy each buffer to host memory
  // and back around the two calls above. Every process must get the same answer, so a
  // communicator of several processes agrees on it with the others beforehand
  // (distribution::Communicator::choose_gradient_transport, at compile), and throws
  // strata::Error when asked about a device it did not agree on.
  virtual bool reduces_cuda_memory(int device) { return false; }
  // Starts summing `count` floats at `data` (memory of the device the previous call
  // named) over every process, in place, once the work enqueued so far on `stream` (a
  // cudaStream_t of that device) has written them. Returns at once; `data` must stay
  // untouched until wait_cuda_all_reduce(data, ...) has returned.
  virtual void start_cuda_all_reduce(float* data, std::int64_t count, void* stream);
  // Returns once the sum started on `data` has completed, so that work enqueued on
  // `stream` afterwards reads it. Throws strata::Error when it failed or did not complete
  // in the communicator's time limit.
  virtual void wait_cuda_all_reduce(float* data, void* stream);
};

}  // namespace strata
