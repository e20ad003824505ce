// SmallVec: a fixed-capacity list for dims, strides and axes inside kernels, so that a
// kernel never allocates on the heap while a step runs. Ranks above kMaxRank are refused.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "core/error.h"

namespace strata::ops {

inline constexpr int kMaxRank = 8;

template <typename T>
class SmallVec {
 public:
  void push_back(T value) {
    if (size_ == kMaxRank) throw ShapeError("tensors of rank above " + std::to_string(kMaxRank) + " are not supported");
    data_[static_cast<std::size_t>(size_++)] = value;
  }
  T& operator[](std::size_t i) { return data_[i]; }
  const T& operator[](std::size_t i) const { return data_[i]; }
  std::size_t size() const { return static_cast<std::size_t>(size_); }
  bool empty() const { return size_ == 0; }
  const T* begin() const { return data_.data(); }
  const T* end() const { return data_.data() + size_; }
  T* begin() { return data_.data(); }
  T* end() { return data_.data() + size_; }
  const T& front() const { return data_[0]; }
  const T& back() const { return data_[static_cast<std::size_t>(size_ - 1)]; }

 private:
  std::array<T, kMaxRank> data_{};
  int size_ = 0;
};

using Strides = SmallVec<std::int64_t>;
using Axes = SmallVec<int>;

}  // namespace strata::ops
