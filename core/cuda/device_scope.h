// Makes a CUDA device current for the calling thread while alive, and the previous one
// current again after (built only with STRATA_WITH_CUDA). CUDA calls that create
// resources (memory, streams, library handles) or launch kernels act on the current
// device, which is a per-thread setting.
#pragma once

#include <new>

namespace strata::cuda {

class DeviceScope {
 public:
  explicit DeviceScope(int device);  // throws strata::Error when the device cannot be made current
  // For destructors: never throws; when CUDA fails, the current device stays as it was.
  DeviceScope(int device, std::nothrow_t) noexcept;
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool changed_ = false;
};

}  // namespace strata::cuda
