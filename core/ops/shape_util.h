// Shape helpers shared by op families: NumPy broadcasting and strided index walks.
#pragma once

#include <array>
#include <concepts>
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

// Collapses a strided walk over `shape` for kernels that index per row: drops the dims of
// size 1 and joins each dim to the one inside it wherever every operand's stride there is
// the inner stride times the inner size (so its memory is walked the same way), rewriting
// each operand's strides to match. Returns the collapsed dims, at least one. A [n, h, w, 1]
// mask against [n, 1, 1, 1] weights becomes [n, h * w]: rows of h * w, not n * h * w rows
// of one element.
template <std::same_as<Strides>... S>
Strides collapse_dims(const Shape& shape, S&... operand_strides) {
  constexpr std::size_t n = sizeof...(S);
  const std::array<Strides*, n> operands{&operand_strides...};
  std::array<Strides, n> collapsed;
  Strides dims;
  for (int d = 0; d < shape.rank(); ++d) {
    const std::int64_t size = shape.dims()[d];
    if (size == 1) continue;
    const auto at = static_cast<std::size_t>(d);
    bool joins = !dims.empty();
    for (std::size_t i = 0; i < n && joins; ++i) joins = collapsed[i].back() == (*operands[i])[at] * size;
    if (joins) {
      dims[dims.size() - 1] *= size;
      for (std::size_t i = 0; i < n; ++i) collapsed[i][collapsed[i].size() - 1] = (*operands[i])[at];
    } else {
      dims.push_back(size);
      for (std::size_t i = 0; i < n; ++i) collapsed[i].push_back((*operands[i])[at]);
    }
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (std::size_t i = 0; i < n; ++i) collapsed[i].push_back(0);
  }
  for (std::size_t i = 0; i < n; ++i) *operands[i] = collapsed[i];
  return dims;
}

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
