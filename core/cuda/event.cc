#include "core/cuda/event.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"

namespace strata::cuda {

Event::Event(int device) : device_(device) {
  DeviceScope scope(device);
  check(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming), "cudaEventCreateWithFlags");
}

Event::~Event() {
  DeviceScope scope(device_, std::nothrow);
  cudaEventDestroy(event_);
}

void Event::record(CUstream_st* stream) { check(cudaEventRecord(event_, stream), "cudaEventRecord"); }

void Event::make_wait(CUstream_st* stream) const {
  check(cudaStreamWaitEvent(stream, event_, 0), "cudaStreamWaitEvent");
}

bool Event::completed() const {
  const cudaError_t status = cudaEventQuery(event_);
  if (status == cudaErrorNotReady) return false;
  check(status, "cudaEventQuery");
  return true;
}

}  // namespace strata::cuda
