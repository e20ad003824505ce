// Device memory: one allocator per device, each reporting the bytes its tensors hold now
// and at most since the last reset — strata::memory_info(device), as
// tf.config.experimental.get_memory_info. The CPU's allocates 64-byte-aligned host
// memory; CUDA's (core/cuda/caching_allocator.h) caches freed blocks for reuse.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/device.h"

namespace strata {

struct MemoryInfo {
  std::int64_t current_bytes = 0;   // held by live tensors
  std::int64_t peak_bytes = 0;      // the most held at once since the last reset
  std::int64_t reserved_bytes = 0;  // obtained from the system, cached blocks included
};

class DeviceAllocator {
 public:
  virtual ~DeviceAllocator() = default;
  // `bytes` of zeroed memory; throws Error naming the device and size when out of memory.
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* data, std::size_t bytes) noexcept = 0;
  virtual MemoryInfo memory_info() const = 0;
  virtual void reset_peak() = 0;
};

// The allocator of `device`; throws ValueError when the device is not available.
DeviceAllocator& allocator_for(const Device& device);

MemoryInfo memory_info(const Device& device);
void reset_peak_memory(const Device& device);

}  // namespace strata
