#include "core/cuda/device_scope.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"

namespace strata::cuda {

DeviceScope::DeviceScope(int device) {
  check(cudaGetDevice(&previous_), "cudaGetDevice");
  if (previous_ != device) {
    check(cudaSetDevice(device), "cudaSetDevice");
    changed_ = true;
  }
}

DeviceScope::DeviceScope(int device, std::nothrow_t) noexcept {
  if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device) changed_ = cudaSetDevice(device) == cudaSuccess;
}

DeviceScope::~DeviceScope() {
  if (changed_) cudaSetDevice(previous_);
}

}  // namespace strata::cuda
