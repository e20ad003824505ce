// Device memory for CUDA tensors (built only with STRATA_WITH_CUDA). cudaMalloc and
// cudaFree synchronize the device and cost far more than a kernel, so freed blocks are
// kept and handed out again: a block of at least the asked size (and at most twice it)
// is reused; memory grows on demand, and when cudaMalloc fails the cache is released
// and the allocation tried once more.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>

#include "core/allocator.h"

struct CUstream_st;

namespace strata::cuda {

class CachingAllocator final : public DeviceAllocator {
 public:
  explicit CachingAllocator(int device) : device_(device) {}
  ~CachingAllocator() override;
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  void* allocate(std::size_t bytes) override;
  void deallocate(void* data, std::size_t bytes) noexcept override;
  MemoryInfo memory_info() const override;
  void reset_peak() override;
  // Returns every cached block to the driver.
  void release_cache() noexcept;

  // Sizes are rounded up to this granularity, so near sizes share blocks.
  static constexpr std::size_t kRounding = 512;

 private:
  void release_cache_locked() noexcept;

  const int device_;
  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> cached_;  // free blocks by size
  std::map<void*, std::size_t> in_use_;       // live blocks and their real size
  std::int64_t current_ = 0, peak_ = 0, reserved_ = 0;
};

// The allocator of CUDA device `device` (made on first use); throws ValueError when
// there is no such device.
CachingAllocator& caching_allocator(int device);

// Copies `bytes` between host and device memory (or device to device), synchronously.
void copy(void* dst, const void* src, std::size_t bytes, bool dst_on_device, bool src_on_device);
// Enqueues the copy on `stream` instead. From pageable host memory the call returns once
// the bytes are staged, so the source may be reused at once.
void copy_async(void* dst, const void* src, std::size_t bytes, bool dst_on_device, bool src_on_device,
                CUstream_st* stream);

}  // namespace strata::cuda
