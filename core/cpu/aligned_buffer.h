// A 64-byte-aligned float buffer that only grows: GEMM's packing workspaces live in one
// per thread, so once the largest block has been seen a product allocates nothing.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>

namespace strata::cpu {

class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  ~AlignedBuffer() { std::free(data_); }

  // At least `floats` floats; the contents are unspecified after growing.
  float* reserve(std::size_t floats) {
    if (floats > capacity_) {
      std::free(data_);
      capacity_ = std::max(floats, capacity_ * 2);
      data_ = static_cast<float*>(std::aligned_alloc(64, (capacity_ * sizeof(float) + 63) / 64 * 64));
    }
    return data_;
  }

  // What the last reserve returned (null before the first).
  const float* get() const { return data_; }

 private:
  float* data_ = nullptr;
  std::size_t capacity_ = 0;
};

}  // namespace strata::cpu
