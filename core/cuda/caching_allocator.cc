#include "core/cuda/caching_allocator.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/device_scope.h"
#include "core/error.h"

// Reusing freed blocks across streams relies on the legacy default stream's implicit
// synchronization (allocate's memset); a per-thread default stream has none.
#if defined(CUDA_API_PER_THREAD_DEFAULT_STREAM)
#error "core/cuda/caching_allocator.cc needs the legacy default stream (no --default-stream per-thread)"
#endif

namespace strata::cuda {

CachingAllocator::~CachingAllocator() {
  std::lock_guard lock(mutex_);
  release_cache_locked();
}

void* CachingAllocator::allocate(std::size_t bytes) {
  const std::size_t size = (std::max<std::size_t>(bytes, 1) + kRounding - 1) / kRounding * kRounding;
  DeviceScope scope(device_);
  void* data = nullptr;
  {
    std::lock_guard lock(mutex_);
    auto it = cached_.lower_bound(size);
    if (it != cached_.end() && it->first <= 2 * size) {
      data = it->second;
      in_use_[data] = it->first;
      current_ += static_cast<std::int64_t>(it->first);
      cached_.erase(it);
    }
  }
  if (!data) {
    cudaError_t status = cudaMalloc(&data, size);
    if (status == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      release_cache();
      status = cudaMalloc(&data, size);
    }
    if (status != cudaSuccess) {
      const std::string call = "cudaMalloc of " + std::to_string(size) + " bytes on cuda:" + std::to_string(device_);
      throw_error(status, nullptr, call.c_str());
    }
    std::lock_guard lock(mutex_);
    in_use_[data] = size;
    current_ += static_cast<std::int64_t>(size);
    reserved_ += static_cast<std::int64_t>(size);
  }
  {
    std::lock_guard lock(mutex_);
    peak_ = std::max(peak_, current_);
  }
  // On the legacy default stream, which waits for the work of every blocking stream of
  // the device and which their later work waits for: a block another execution state's
  // stream freed is reused only after that stream's kernels are done with it.
  if (const cudaError_t status = cudaMemset(data, 0, bytes); status != cudaSuccess) {
    deallocate(data, bytes);
    throw_error(status, nullptr, "cudaMemset");
  }
  return data;
}

void CachingAllocator::deallocate(void* data, std::size_t) noexcept {
  if (!data) return;
  std::lock_guard lock(mutex_);
  auto it = in_use_.find(data);
  if (it == in_use_.end()) return;
  current_ -= static_cast<std::int64_t>(it->second);
  cached_.emplace(it->second, data);
  in_use_.erase(it);
}

MemoryInfo CachingAllocator::memory_info() const {
  std::lock_guard lock(mutex_);
  return {current_, peak_, reserved_};
}

void CachingAllocator::reset_peak() {
  std::lock_guard lock(mutex_);
  peak_ = current_;
}

void CachingAllocator::release_cache() noexcept {
  std::lock_guard lock(mutex_);
  release_cache_locked();
}

void CachingAllocator::release_cache_locked() noexcept {
  int previous = 0;
  if (cudaGetDevice(&previous) != cudaSuccess) return;
  cudaSetDevice(device_);
  for (const auto& [size, data] : cached_) {
    cudaFree(data);
    reserved_ -= static_cast<std::int64_t>(size);
  }
  cached_.clear();
  cudaSetDevice(previous);
}

CachingAllocator& caching_allocator(int device) {
  static std::mutex mutex;
  static std::vector<std::unique_ptr<CachingAllocator>> allocators;
  std::lock_guard lock(mutex);
  if (allocators.empty()) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
      cudaGetLastError();
      count = 0;
    }
    for (int i = 0; i < count; ++i) allocators.push_back(std::make_unique<CachingAllocator>(i));
  }
  if (device < 0 || device >= static_cast<int>(allocators.size())) {
    throw ValueError("device cuda:" + std::to_string(device) + " is not available: this process sees " +
                     std::to_string(allocators.size()) + " CUDA device(s)");
  }
  return *allocators[static_cast<std::size_t>(device)];
}

void copy(void* dst, const void* src, std::size_t bytes, bool dst_on_device, bool src_on_device) {
  if (bytes == 0) return;
  // On the device the memory is on (the destination's when both are): its legacy default
  // stream orders the copy after the memset that cleared the block when it was allocated,
  // which another current device's stream would not.
  std::optional<DeviceScope> scope;
  if (dst_on_device || src_on_device) {
    cudaPointerAttributes attributes{};
    check(cudaPointerGetAttributes(&attributes, dst_on_device ? dst : src), "cudaPointerGetAttributes");
    scope.emplace(attributes.device);
  }
  const cudaMemcpyKind kind = dst_on_device ? (src_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                            : (src_on_device ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  check(cudaMemcpy(dst, src, bytes, kind), "cudaMemcpy");
}

void copy_async(void* dst, const void* src, std::size_t bytes, bool dst_on_device, bool src_on_device,
                CUstream_st* stream) {
  if (bytes == 0) return;
  const cudaMemcpyKind kind = dst_on_device ? (src_on_device ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice)
                                            : (src_on_device ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost);
  check(cudaMemcpyAsync(dst, src, bytes, kind, stream), "cudaMemcpyAsync");
}

}  // namespace strata::cuda
