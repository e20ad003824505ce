// A tensor shape. A dimension may be unknown (kUnknownDim, printed "None") until data
// is fed: typically the batch dimension of symbolic tensors.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace strata {

inline constexpr std::int64_t kUnknownDim = -1;
// The most elements a shape may count (2^60: every byte count of every dtype still fits).
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 60;

class Shape {
 public:
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<std::int64_t> dims) : dims_(std::move(dims)) {}

  int rank() const { return static_cast<int>(dims_.size()); }
  // Negative axes count from the end, as in Keras. Throws ShapeError when out of range.
  std::int64_t operator[](int axis) const { return dims_[normalize_axis(axis)]; }
  std::int64_t& operator[](int axis) { return dims_[normalize_axis(axis)]; }
  int normalize_axis(int axis) const;

  const std::vector<std::int64_t>& dims() const { return dims_; }
  bool is_fully_defined() const;
  // Product of all dimensions; throws ShapeError if any is unknown or it exceeds
  // kMaxElements.
  std::int64_t num_elements() const;
  // Product of dimensions [from, to); unknown dims make it kUnknownDim.
  std::int64_t product(int from, int to) const;

  // True when every dim agrees or one side is unknown.
  bool is_compatible_with(const Shape& other) const;
  Shape with_dim(int axis, std::int64_t value) const;
  Shape without_batch() const;  // drops dim 0
  Shape with_batch(std::int64_t batch) const;  // prepends a dim

  // Keras's notation: "(None, 28, 28)", "(10,)", "()".
  std::string to_string() const;

  friend bool operator==(const Shape&, const Shape&) = default;

 private:
  std::vector<std::int64_t> dims_;
};

}  // namespace strata
