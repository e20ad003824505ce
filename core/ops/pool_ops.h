// 2-D pooling and nearest-neighbour upsampling, NHWC layout. Padding is explicit
// (top, bottom, left, right); padded cells never count: max ignores them and average
// divides by the number of in-bounds cells (Keras's "same" pooling).
//   max_pool2d       gradient: max_pool2d_grad (routes dy to the first maximum of each
//                    window). max_pool2d_grad itself is declared non-differentiable:
//                    second derivatives through max pooling are not supported.
//   max_pool2d_relu_grad  (dz, db): for x = relu(z), the gradient through the pool and
//                    the relu, dz (zero where a window's maximum is not positive), and
//                    db = Σ dz over (N, H, W); non-differentiable. conv2d's gradient uses
//                    it when its relu output is max-pooled (one pass instead of three).
//   avg_pool2d       gradient: avg_pool2d_grad, its adjoint; each is the other's gradient.
//   upsample_nearest2d  gradient: avg_pool2d over the size window, times the window area.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

struct Pool2DParams {
  std::vector<std::int64_t> pool_size{2, 2};
  std::vector<std::int64_t> strides{2, 2};
  std::vector<std::int64_t> pads{0, 0, 0, 0};  // top, bottom, left, right (or kSamePad pairs)
};

// A pooling node's windows over its input x (N, H, W, C): output size (oh, ow), window
// (kh, kw), strides (sh, sw) and the top and left pads, as inference checks it and the
// CPU's pooling kernels read it.
struct PoolGeom {
  std::int64_t n, h, w, c, oh, ow, kh, kw, sh, sw, pt, pl;
};
// The geometry of op `op` (named in errors) over an input of shape x, from the node's
// attributes (pool_size, strides, pads) read in place; throws for invalid ones.
PoolGeom pool_geometry(std::string_view op, const Shape& x, const Attrs& attrs);

Output max_pool2d(Output x, const Pool2DParams& params);
Output max_pool2d_grad(Output x, Output dy, const Pool2DParams& params);
std::pair<Output, Output> max_pool2d_relu_grad(Output relu_output, Output dy, const Pool2DParams& params);
Output avg_pool2d(Output x, const Pool2DParams& params);
// input_size = {H, W} of the pooled input; a size unknown until run time (kUnknownDim) is
// read then from `sizes_from` (the pooled input: only its shape is read).
Output avg_pool2d_grad(Output dy, std::vector<std::int64_t> input_size, const Pool2DParams& params,
                       Output sizes_from = {});
// (N, H, W, C) -> (N, H·size[0], W·size[1], C), each value repeated.
Output upsample_nearest2d(Output x, std::vector<std::int64_t> size);

}  // namespace strata::ops
