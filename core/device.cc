#include "core/device.h"

#include "core/cuda/cuda_devices.h"

namespace strata {

std::string to_string(DeviceType type) {
  switch (type) {
    case DeviceType::cpu: return "cpu";
    case DeviceType::cuda: return "cuda";
  }
  return "unknown";
}

std::string to_string(const Device& device) {
  return to_string(device.type) + ":" + std::to_string(device.index);
}

bool built_with_cuda() noexcept {
#ifdef STRATA_WITH_CUDA
  return true;
#else
  return false;
#endif
}

std::vector<Device> available_devices() noexcept {
  std::vector<Device> devices;
  try {
    devices.push_back({DeviceType::cpu, 0, "cpu"});
#ifdef STRATA_WITH_CUDA
    for (Device& gpu : cuda::cuda_devices()) devices.push_back(std::move(gpu));
#endif
  } catch (...) {
    // Only allocation can fail here; the CPU entry is what matters.
  }
  return devices;
}

}  // namespace strata
