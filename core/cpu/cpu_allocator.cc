#include "core/cpu/cpu_allocator.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"

namespace strata::cpu {

void* CpuAllocator::allocate(std::size_t bytes) {
  const std::size_t size = rounded(bytes == 0 ? 1 : bytes);
  void* data = std::aligned_alloc(kAlignment, size);
  if (!data) throw Error("out of memory allocating " + std::to_string(size) + " bytes on cpu:0");
  std::memset(data, 0, size);
  const std::int64_t now = current_.fetch_add(static_cast<std::int64_t>(size)) + static_cast<std::int64_t>(size);
  std::int64_t peak = peak_.load();
  while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
  }
  return data;
}

void CpuAllocator::deallocate(void* data, std::size_t bytes) noexcept {
  if (!data) return;
  std::free(data);
  current_.fetch_sub(static_cast<std::int64_t>(rounded(bytes == 0 ? 1 : bytes)));
}

MemoryInfo CpuAllocator::memory_info() const {
  const std::int64_t current = current_.load();
  return {current, peak_.load(), current};
}

void CpuAllocator::reset_peak() { peak_.store(current_.load()); }

CpuAllocator& cpu_allocator() {
  static CpuAllocator allocator;
  return allocator;
}

}  // namespace strata::cpu
