#include "core/allocator.h"

#include "core/cpu/cpu_allocator.h"
#include "core/error.h"
#ifdef STRATA_WITH_CUDA
#include "core/cuda/caching_allocator.h"
#endif

namespace strata {

DeviceAllocator& allocator_for(const Device& device) {
  if (device.type == DeviceType::cpu) {
    if (device.index != 0) throw ValueError("there is no device " + to_string(device) + ": the CPU is cpu:0");
    return cpu::cpu_allocator();
  }
#ifdef STRATA_WITH_CUDA
  return cuda::caching_allocator(device.index);
#else
  require_available(device);  // throws: this build has no CUDA
  throw ValueError("device " + to_string(device) + " is not available");
#endif
}

MemoryInfo memory_info(const Device& device) { return allocator_for(device).memory_info(); }

void reset_peak_memory(const Device& device) { allocator_for(device).reset_peak(); }

}  // namespace strata
