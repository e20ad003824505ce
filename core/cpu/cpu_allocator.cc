#include "core/cpu/cpu_allocator.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"

namespace strata::cpu {

namespace {

// Blocks up to this size come from malloc, over-allocated by the alignment and aligned by
// hand, the address malloc gave kept in the word before the block. glibc's aligned_alloc
// carves an aligned chunk out of a larger one and frees the pieces around it, a slow path
// that every small tensor took (a batch-1 prediction's result among them); malloc serves
// such sizes from its per-thread cache. Larger blocks keep aligned_alloc, whose cost is
// small beside the memory's. deallocate is given the same size, so it knows which path
// a block took.
constexpr std::size_t kSmallBlock = 64 * 1024;

void* allocate_small(std::size_t size) {
  void* raw = std::malloc(size + CpuAllocator::kAlignment);
  if (!raw) return nullptr;
  const auto address = reinterpret_cast<std::uintptr_t>(raw);
  // malloc aligns to at least 16 bytes, so there is room for the word before the block.
  const std::uintptr_t aligned = (address + CpuAllocator::kAlignment) & ~(std::uintptr_t{CpuAllocator::kAlignment} - 1);
  reinterpret_cast<void**>(aligned)[-1] = raw;
  return reinterpret_cast<void*>(aligned);
}

void free_small(void* data) { std::free(static_cast<void**>(data)[-1]); }

}  // namespace

void* CpuAllocator::allocate(std::size_t bytes) {
  const std::size_t size = rounded(bytes == 0 ? 1 : bytes);
  void* data = size <= kSmallBlock ? allocate_small(size) : std::aligned_alloc(kAlignment, size);
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
  const std::size_t size = rounded(bytes == 0 ? 1 : bytes);
  if (size <= kSmallBlock) {
    free_small(data);
  } else {
    std::free(data);
  }
  current_.fetch_sub(static_cast<std::int64_t>(size));
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
