// Keras's "number or one number per channel" arguments (Rescaling's scale and offset):
// `1.0 / 255` or `{0.5, 0.25, 2.0}`.
#pragma once

#include <initializer_list>
#include <vector>

namespace strata::layers {

struct PerChannel {
  PerChannel(double value) : values{value} {}  // NOLINT: implicit, like Keras's floats
  PerChannel(std::initializer_list<double> v) : values(v) {}
  explicit PerChannel(std::vector<double> v) : values(std::move(v)) {}
  std::vector<double> values;
  bool single() const { return values.size() == 1; }
  friend bool operator==(const PerChannel&, const PerChannel&) = default;
};

}  // namespace strata::layers
