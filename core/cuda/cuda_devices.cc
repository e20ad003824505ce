#include "core/cuda/cuda_devices.h"

#include <cuda_runtime_api.h>

namespace strata::cuda {

std::vector<Device> cuda_devices() noexcept {
  std::vector<Device> devices;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error so later CUDA calls start clean
    return devices;
  }
  try {
    for (int i = 0; i < count; ++i) {
      cudaDeviceProp props{};
      if (cudaGetDeviceProperties(&props, i) != cudaSuccess) {
        cudaGetLastError();
        continue;
      }
      devices.push_back({DeviceType::cuda, i, props.name});
    }
  } catch (...) {
    devices.clear();
  }
  return devices;
}

}  // namespace strata::cuda
