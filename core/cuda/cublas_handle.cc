#include "core/cuda/cublas_handle.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "core/cuda/caching_allocator.h"
#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/cuda/stream.h"

namespace strata::cuda {

CublasHandle::CublasHandle(const Stream& stream) : device_(stream.device()) {
  DeviceScope scope(stream.device());
  check(cublasCreate(&handle_), "cublasCreate");
  try {
    workspace_ = caching_allocator(device_).allocate(kWorkspaceBytes);
    bind(stream.get());
    check(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  } catch (...) {
    cublasDestroy(handle_);
    if (workspace_) caching_allocator(device_).deallocate(workspace_, kWorkspaceBytes);
    throw;
  }
}

void CublasHandle::bind(CUstream_st* stream) {
  check(cublasSetStream(handle_, stream), "cublasSetStream");
  stream_ = stream;
  check(cublasSetWorkspace(handle_, workspace_, kWorkspaceBytes), "cublasSetWorkspace");
}

CublasHandle::~CublasHandle() {
  DeviceScope scope(device_, std::nothrow);
  // No product may still use the block when the allocator hands it out again.
  if (stream_) cudaStreamSynchronize(stream_);
  cublasDestroy(handle_);
  caching_allocator(device_).deallocate(workspace_, kWorkspaceBytes);
}

}  // namespace strata::cuda
