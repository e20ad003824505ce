// What the 3-D layers (Conv3D, Conv3DTranspose, pooling, padding, cropping, upsampling)
// share beyond conv_utils.h: Keras's `int or tuple of 3 ints` and its 3-D padding and
// cropping amounts, with their config spellings.
#pragma once

#include <cstdint>
#include <vector>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"

namespace strata::layers {

// Keras's `int or tuple of 3 ints`: `.strides = 2` or `.strides = {2, 1, 1}`
// (depth, rows, cols).
struct IntTriple {
  IntTriple(std::int64_t v) : first(v), second(v), third(v) {}  // NOLINT: implicit, like Keras's ints
  IntTriple(std::int64_t a, std::int64_t b, std::int64_t c) : first(a), second(b), third(c) {}
  std::int64_t first, second, third;
  std::vector<std::int64_t> vec() const { return {first, second, third}; }
  friend bool operator==(const IntTriple&, const IntTriple&) = default;
};

// Keras's ZeroPadding3D / Cropping3D amounts: `1` (all sides), `{1, 2, 3}` (symmetric per
// axis) or `{{1, 2}, {3, 4}, {5, 6}}` ((front, back), (top, bottom), (left, right)).
struct Padding3D {
  Padding3D(std::int64_t v) : depth(v), rows(v), cols(v) {}  // NOLINT: implicit, like Keras's ints
  Padding3D(IntPair depth_, IntPair rows_, IntPair cols_) : depth(depth_), rows(rows_), cols(cols_) {}
  IntPair depth, rows, cols;
  std::vector<std::int64_t> vec() const {
    return {depth.first, depth.second, rows.first, rows.second, cols.first, cols.second};
  }
};

template <>
struct ConfigTraits<IntTriple> {
  static constexpr ValueKind kind = ValueKind::int_tuple;
  static constexpr int arity = 3;
  static ConfigValue to(const IntTriple& v) { return v.vec(); }
  static IntTriple from(const ConfigValue& v) {
    const auto& x = std::get<std::vector<std::int64_t>>(v);
    return {x.at(0), x.at(1), x.at(2)};
  }
};
template <>
struct ConfigTraits<Padding3D> {
  static constexpr ValueKind kind = ValueKind::int_tuple;
  static constexpr int arity = 6;  // front, back, top, bottom, left, right
  static ConfigValue to(const Padding3D& v) { return v.vec(); }
  static Padding3D from(const ConfigValue& v) {
    const auto& x = std::get<std::vector<std::int64_t>>(v);
    return {IntPair(x.at(0), x.at(1)), IntPair(x.at(2), x.at(3)), IntPair(x.at(4), x.at(5))};
  }
};

}  // namespace strata::layers
