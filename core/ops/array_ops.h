// Array ops for layers that move data without arithmetic: zero padding and cropping
// (each the other's gradient), axis permutation, new, split and merged axes,
// concatenation, and the training-mode switch that BatchNormalization uses.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// Zeros added before/after each axis (one entry per axis of x).
Output pad(Output x, std::vector<std::int64_t> before, std::vector<std::int64_t> after);
// Elements removed before/after each axis: crop(pad(x, b, a), b, a) == x.
Output crop(Output x, std::vector<std::int64_t> before, std::vector<std::int64_t> after);
// out.shape[i] = x.shape[perm[i]] (NumPy's transpose).
Output transpose(Output x, std::vector<std::int64_t> perm);
// x with a new axis of size 1 at `axis` (negative: counted from the end of the result),
// as keras.ops.expand_dims; unknown dims stay unknown.
Output expand_dims(Output x, int axis);
// Axis `axis` split into `parts` (their product its size), or axes first..first+count-1
// merged into one; the other axes stay as they are, known or not.
Output split_axis(Output x, int axis, std::vector<std::int64_t> parts);
Output merge_axes(Output x, int first, int count);
// ops::reshape to `shape`, which may hold one -1 (inferred from the size) and any
// dim_from(k, i): dim k of input i's shape as fed (0: x; 1, 2, ...: `dims_from`, whose
// values are never read), so dims unknown until run time (None) are kept; other dims are
// taken literally. A -1 beside an unknown dim is resolved when the program runs.
constexpr std::int64_t dim_from(int axis, int input = 0) {
  return -(2 + static_cast<std::int64_t>(axis) + 8 * static_cast<std::int64_t>(input));
}
Output reshape(Output x, const std::vector<std::int64_t>& shape, const std::vector<Output>& dims_from);
// Joins along `axis`; the other dims must agree.
Output concat(const std::vector<Output>& xs, int axis);
// `in_training` when the program runs in training mode, `in_inference` otherwise.
// Both inputs are computed either way (the program does not depend on the mode).
Output training_select(Output in_training, Output in_inference);

}  // namespace strata::ops
