// Keras's "int or tuple of ints" axis argument: `.axis = -1` or `.axis = {1, 2}`.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace strata::layers {

struct Axes {
  Axes(std::int64_t axis) : values{axis} {}  // NOLINT: implicit, like Keras's ints
  Axes(std::initializer_list<std::int64_t> axes) : values(axes) {}
  explicit Axes(std::vector<std::int64_t> axes) : values(std::move(axes)) {}
  std::vector<std::int64_t> values;
  friend bool operator==(const Axes&, const Axes&) = default;
};

}  // namespace strata::layers
