#include "core/cuda/cublaslt_handle.h"

#include <cublasLt.h>

#include <new>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"

namespace strata::cuda {

CublasLtHandle::CublasLtHandle(int device) : device_(device) {
  DeviceScope scope(device);
  check(cublasLtCreate(&handle_), "cublasLtCreate");
}

CublasLtHandle::~CublasLtHandle() {
  DeviceScope scope(device_, std::nothrow);
  cublasLtDestroy(handle_);
}

}  // namespace strata::cuda
