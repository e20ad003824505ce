#include "core/allocator.h"

#include "core/cpu/cpu_allocator.h"
#include "core/device_backend.h"
#include "core/error.h"

namespace strata {

DeviceAllocator& allocator_for(const Device& device) {
  if (device.type == DeviceType::cpu) {
    if (device.index != 0) throw ValueError("there is no device " + to_string(device) + ": the CPU is cpu:0");
    return cpu::cpu_allocator();
  }
  if (DeviceBackend* backend = device_backend(device.type)) return backend->allocator(device.index);
  require_available(device);  // throws: this build has no such device
  throw ValueError("device " + to_string(device) + " is not available");
}

MemoryInfo memory_info(const Device& device) { return allocator_for(device).memory_info(); }

void reset_peak_memory(const Device& device) { allocator_for(device).reset_peak(); }

}  // namespace strata
