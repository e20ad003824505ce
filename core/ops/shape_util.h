// Shape helpers shared by op families: NumPy broadcasting and strided index walks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/op_registry.h"
#include "core/ops/small_vec.h"

namespace strata::ops {

// Broadcast result of two shapes (unknown dims stay unknown); throws ShapeError naming
// the op and both shapes when they are incompatible.
Shape broadcast_shapes(const std::string& op, const Shape& a, const Shape& b);

// Strides (in elements) of `in` read as if broadcast to `out` (0 on broadcast dims).
Strides broadcast_strides(const Shape& in, const Shape& out);

// Strides of the keepdims result of reducing `axes` of `shape`, read at `shape`'s
// indices (0 on reduced axes): where each input element's reduction lands.
Strides reduced_strides(const Shape& shape, const Axes& axes);

// Axes along which `small` (right-aligned, padded with leading 1s) was broadcast to `big`.
Axes broadcast_axes(const Shape& small, const Shape& big);

// Normalized, sorted, unique axes for a reduction over `rank` dims (empty = all).
Axes reduction_axes(const std::string& op, const std::vector<std::int64_t>& axes, int rank);

// Shape after reducing `axes` of `shape`.
Shape reduced_shape(const Shape& shape, const Axes& axes, bool keepdims);

// Throws ValueError unless the op got `n` inputs.
void expect_inputs(const InferContext& ctx, std::size_t n);

// Throws ValueError unless input `i` is float32 (`what` names it: "predictions").
void expect_float_input(const InferContext& ctx, std::size_t i, const std::string& what = "input");

}  // namespace strata::ops
