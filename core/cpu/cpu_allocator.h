// Host memory for CPU tensors: 64-byte aligned (vector loads never straddle a line),
// zeroed, counted for memory_info(cpu).
#pragma once

#include <atomic>

#include "core/allocator.h"

namespace strata::cpu {

class CpuAllocator final : public DeviceAllocator {
 public:
  void* allocate(std::size_t bytes) override;
  void deallocate(void* data, std::size_t bytes) noexcept override;
  MemoryInfo memory_info() const override;
  void reset_peak() override;

  static constexpr std::size_t kAlignment = 64;
  // What allocate(bytes) really takes: rounded up to the alignment.
  static std::size_t rounded(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

 private:
  std::atomic<std::int64_t> current_{0};
  std::atomic<std::int64_t> peak_{0};
};

CpuAllocator& cpu_allocator();

}  // namespace strata::cpu
