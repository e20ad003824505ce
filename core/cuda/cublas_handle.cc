#include "core/cuda/cublas_handle.h"

#include <cublas_v2.h>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/cuda/stream.h"

namespace strata::cuda {

CublasHandle::CublasHandle(const Stream& stream) : device_(stream.device()) {
  DeviceScope scope(stream.device());
  check(cublasCreate(&handle_), "cublasCreate");
  try {
    check(cublasSetStream(handle_, stream.get()), "cublasSetStream");
    check(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH), "cublasSetMathMode");
  } catch (...) {
    cublasDestroy(handle_);
    throw;
  }
}

CublasHandle::~CublasHandle() {
  DeviceScope scope(device_, std::nothrow);
  cublasDestroy(handle_);
}

}  // namespace strata::cuda
