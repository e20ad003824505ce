#include "core/cuda/stream.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"

namespace strata::cuda {

Stream::Stream(int device, Kind kind) : device_(device) {
  DeviceScope scope(device);
  check(cudaStreamCreateWithFlags(&stream_, kind == Kind::blocking ? cudaStreamDefault : cudaStreamNonBlocking),
        "cudaStreamCreateWithFlags");
}

Stream::~Stream() {
  // The stream's pending work still completes; nothing to report from a destructor.
  DeviceScope scope(device_, std::nothrow);
  cudaStreamDestroy(stream_);
}

void Stream::synchronize() const { check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize"); }

}  // namespace strata::cuda
