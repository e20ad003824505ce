#include "core/shape.h"

#include "core/error.h"

namespace strata {

int Shape::normalize_axis(int axis) const {
  int r = rank();
  int a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r) {
    throw ShapeError("axis " + std::to_string(axis) + " is out of range for a tensor of shape " +
                     to_string());
  }
  return a;
}

bool Shape::is_fully_defined() const {
  for (auto d : dims_) {
    if (d < 0) return false;
  }
  return true;
}

std::int64_t Shape::num_elements() const {
  std::int64_t n = 1;
  for (auto d : dims_) {
    if (d < 0) throw ShapeError("shape " + to_string() + " has an unknown dimension");
    // A shape read from outside (a damaged file, a config) may multiply past int64, and
    // no tensor holds 2^60 elements: both are errors, not wrapped counts.
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxElements)
      throw ShapeError("shape " + to_string() + " has more elements than any tensor can hold");
  }
  return n;
}

std::int64_t Shape::product(int from, int to) const {
  std::int64_t n = 1;
  for (int i = from; i < to; ++i) {
    if (dims_[i] < 0) return kUnknownDim;
    n *= dims_[i];
  }
  return n;
}

bool Shape::is_compatible_with(const Shape& other) const {
  if (rank() != other.rank()) return false;
  for (int i = 0; i < rank(); ++i) {
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  }
  return true;
}

Shape Shape::with_dim(int axis, std::int64_t value) const {
  Shape s = *this;
  s[axis] = value;
  return s;
}

Shape Shape::without_batch() const {
  if (dims_.empty()) throw ShapeError("a scalar shape has no batch dimension");
  return Shape(std::vector<std::int64_t>(dims_.begin() + 1, dims_.end()));
}

Shape Shape::with_batch(std::int64_t batch) const {
  std::vector<std::int64_t> d{batch};
  d.insert(d.end(), dims_.begin(), dims_.end());
  return Shape(std::move(d));
}

std::string Shape::to_string() const {
  std::string s = "(";
  for (std::size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ", ";
    s += dims_[i] < 0 ? "None" : std::to_string(dims_[i]);
  }
  if (dims_.size() == 1) s += ",";
  return s + ")";
}

}  // namespace strata
