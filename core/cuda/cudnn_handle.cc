#include "core/cuda/cudnn_handle.h"

#include <memory>

#include "core/cuda/cudnn_check.h"
#include "core/cuda/device_scope.h"
#include "core/cuda/run_context.h"
#include "core/cuda/stream.h"

namespace strata::cuda {

CudnnHandle::CudnnHandle(const Stream& stream) : device_(stream.device()) {
  DeviceScope scope(stream.device());
  check(cudnnCreate(&handle_), "cudnnCreate");
  try {
    check(cudnnSetStream(handle_, stream.get()), "cudnnSetStream");
  } catch (...) {
    cudnnDestroy(handle_);
    throw;
  }
}

CudnnHandle::~CudnnHandle() {
  DeviceScope scope(device_, std::nothrow);
  cudnnDestroy(handle_);
}

CudnnHandle& RunContext::cudnn() {
  if (!cudnn_) cudnn_ = std::make_shared<CudnnHandle>(stream_);
  return *cudnn_;
}

}  // namespace strata::cuda
