// 2-D convolution ops, NHWC layout (channels last), cross-correlation as in Keras:
//   out[n, y, x, o] = Σ_{ky,kx,c} in[n, y·sh + ky·dh − top, x·sw + kx·dw − left, g·Cg + c]
//                                 · kernel[ky, kx, c, o]      (g = o / (O / groups))
// kernel is (kh, kw, C / groups, O), Keras's Conv2D layout. Padding is explicit
// (top, bottom, left, right): layers turn "valid" / "same" / "causal" into numbers.
//
// The three ops are bilinear and each one's adjoints are the other two, so all three are
// differentiable to any order:
//   y  = conv2d(x, k)                  dx = conv2d_backprop_input(dy, k)
//                                      dk = conv2d_backprop_filter(x, dy)
// Conv2DTranspose is conv2d_backprop_input with its kernel (kh, kw, out, in).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

struct Conv2DParams {
  std::vector<std::int64_t> strides{1, 1};
  std::vector<std::int64_t> dilations{1, 1};
  std::vector<std::int64_t> pads{0, 0, 0, 0};  // top, bottom, left, right
  std::int64_t groups = 1;
};

// x (N, H, W, C), kernel (kh, kw, C / groups, O) -> (N, OH, OW, O).
Output conv2d(Output x, Output kernel, const Conv2DParams& params);
// conv2d with the bias add (bias (O,), or an invalid Output for none) and an activation
// ("" or "relu") fused into the kernel: one pass over the output instead of three.
Output conv2d_bias_activation(Output x, Output kernel, Output bias, const std::string& activation,
                              const Conv2DParams& params);
// The gradient of conv2d for its input: dy (N, OH, OW, O) -> (N, H, W, C), where
// input_size = {H, W} (several input sizes give one output size when strides > 1).
Output conv2d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv2DParams& params);
// The gradient of conv2d for its kernel: x (N, H, W, C), dy (N, OH, OW, O) ->
// (kh, kw, C / groups, O), where kernel_size = {kh, kw}.
Output conv2d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv2DParams& params);

// Output length of a convolution or pooling window over `size` elements.
std::int64_t conv_output_length(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t dilation,
                                std::int64_t pad_before, std::int64_t pad_after);

// Geometry of one convolution, read from attributes and shapes: what shape inference
// checks and the CPU kernels (core/cpu/kernels/conv.cc) run on.
struct Conv2DGeometry {
  std::int64_t n = 0, h = 0, w = 0, c = 0;    // input
  std::int64_t oh = 0, ow = 0, o = 0;         // output
  std::int64_t kh = 0, kw = 0;                // kernel window
  std::int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  std::int64_t groups = 1, cg = 0, og = 0;    // channels per group (in, out)
  std::int64_t kdim() const { return kh * kw * cg; }
  std::int64_t rows() const { return oh * ow; }  // output positions per image
  bool pointwise() const {
    return kh == 1 && kw == 1 && sh == 1 && sw == 1 && pt == 0 && pb == 0 && pl == 0 && pr == 0 && groups == 1;
  }
};

// The geometry of a conv2d-family node: x's shape (N, H, W, C), the kernel window
// (kh, kw), o output channels, and the params read in place from the node's attributes
// (kernels run this on every step: copying the params would allocate). Throws
// ShapeError, naming `op`, when the channels do not divide into groups or a window does
// not fit.
Conv2DGeometry conv2d_geometry(const Shape& x, std::int64_t kh, std::int64_t kw, std::int64_t o, const Attrs& attrs,
                               std::string_view op);

}  // namespace strata::ops
