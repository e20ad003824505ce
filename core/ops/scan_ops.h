// Ops along one axis whose every output reads a run of inputs before (or after) it:
// cumulative sums and products, as keras.ops.cumsum and cumprod, the reversal of an axis
// (keras.ops.flip), which is the adjoint a reverse scan needs, and the order that sorts an
// axis (keras.ops.argsort, sort and top_k).
#pragma once

#include "core/graph.h"

namespace strata::ops {

// out[..., k, ...] = x[..., 0, ...] + ... + x[..., k, ...] along `axis` (negative counts
// from the end); with `reverse`, the sum from k to the end. Summed in float32 in order,
// as TensorFlow's scan.
Output cumsum(Output x, int axis, bool reverse = false);
// The running product along `axis`. Its gradient holds where x has zeros (TensorFlow's,
// cumsum(g·y, reverse) / x, is NaN there): dx_i = Π_{k<i} x_k · R_i, R_i = g_i + x_{i+1}·R_{i+1}.
Output cumprod(Output x, int axis);
// x with `axis` in reverse order.
Output reverse(Output x, int axis);
// The positions (int32) that sort x along `axis`: out[..., k, ...] is where the k-th smallest
// (largest with `descending`) element of the lane is. Equal elements keep their order (a
// stable sort: tf.argsort and tf.math.top_k also take the earlier first); NaN counts as
// larger than every number and equal to NaN (NumPy's order). Not differentiable.
Output argsort(Output x, int axis, bool descending = false);

// For each element of x's last two axes (rank >= 2), its column index minus its row index
// (float32, x's shape): 0 on the main diagonal, k on the k-th above. Running sums of ones,
// so sized by x when the program runs; masks of diagonals, triangles and bands read it.
Output column_minus_row(Output x);

// A scan node's input seen as (outer, n, inner) around its axis (the node's "axis"
// attribute, negative from the end): each device's kernels walk these lanes.
struct ScanLanes {
  std::int64_t outer = 1, n = 1, inner = 1;
};
ScanLanes scan_lanes(const Shape& x, const Attrs& attrs);

}  // namespace strata::ops
