// Convolution ops over 2 or 3 spatial axes, channels last (NHWC, NDHWC), cross-correlation
// as in Keras. Per spatial axis a, with stride s, dilation d and `before` padding:
//   out[n, p, o] = Σ_{q,c} in[n, p·s + q·d − before, g·Cg + c] · kernel[q, c, o]
// (p, q run over the spatial axes; g = o / (O / groups)). The kernel is
// (window..., C / groups, O), Keras's Conv2D / Conv3D layout. Padding is explicit, before
// and after each axis (2-D: top, bottom, left, right; 3-D: front, back, top, bottom, left,
// right): layers turn "valid" / "same" / "causal" into numbers. Conv1D runs as conv2d
// with a unit axis.
//
// Each rank is one family of three ops, declared once here for both ranks. The three are
// bilinear and each one's adjoints are the other two, so all are differentiable to any
// order:
//   y  = conv2d(x, k)                  dx = conv2d_backprop_input(dy, k)
//                                      dk = conv2d_backprop_filter(x, dy)
// (conv3d alike). ConvNDTranspose is convNd_backprop_input with its kernel
// (window..., out, in). conv2d also takes a fused bias and relu (conv2d_bias_activation).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// A pads pair (before, after) of kSamePad is Keras's "same" on that axis, worked out from
// the input's size each time shapes are inferred: what a layer gives for a spatial dim
// unknown until run time when the pads depend on the size (strides above 1). Pooling's
// pads take it too.
inline constexpr std::int64_t kSamePad = -1;
// Keras's "same" pads (before, after) over `size` elements (TensorFlow's split: the odd
// element after).
std::pair<std::int64_t, std::int64_t> same_pads(std::int64_t size, std::int64_t kernel, std::int64_t stride,
                                                std::int64_t dilation);

template <int SpatialRank>
struct ConvParams {
  std::vector<std::int64_t> strides = std::vector<std::int64_t>(SpatialRank, 1);
  std::vector<std::int64_t> dilations = std::vector<std::int64_t>(SpatialRank, 1);
  // Before and after each spatial axis, in order (2-D: top, bottom, left, right).
  std::vector<std::int64_t> pads = std::vector<std::int64_t>(2 * SpatialRank, 0);
  std::int64_t groups = 1;
};
using Conv2DParams = ConvParams<2>;
using Conv3DParams = ConvParams<3>;

// x (N, H, W, C), kernel (kh, kw, C / groups, O) -> (N, OH, OW, O).
Output conv2d(Output x, Output kernel, const Conv2DParams& params);
// conv2d with the bias add (bias (O,), or an invalid Output for none) and an activation
// ("" or "relu") fused into the kernel: one pass over the output instead of three.
// `gradient_rounding`: as ops::dense's (an emulated bfloat16 Conv2D's relu gradient
// rounded, and its output rounded by its kernel: the node's output_rounding).
Output conv2d_bias_activation(Output x, Output kernel, Output bias, const std::string& activation,
                              const Conv2DParams& params,
                              ComputePrecision gradient_rounding = ComputePrecision::float32);
// The gradient of conv2d for its input: dy (N, OH, OW, O) -> (N, H, W, C), where
// input_size = {H, W} (several input sizes give one output size when strides > 1). A size
// unknown until run time (kUnknownDim) is read then from `sizes_from` (the convolution's
// input: only its shape is read), which must then be given.
Output conv2d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv2DParams& params, Output sizes_from = {});
// A transposed convolution (Keras's Conv2DTranspose, kernel (kh, kw, O, C)): the gradient
// of conv2d for its input, where a size of output_size unknown until run time
// (kUnknownDim) follows from x's as size · stride + size_offsets[axis] (Keras's output
// length rule for the padding and output_padding, worked out by the layer).
Output conv2d_transpose(Output x, Output kernel, std::vector<std::int64_t> output_size, const Conv2DParams& params,
                        std::vector<std::int64_t> size_offsets);
// The gradient of conv2d for its kernel: x (N, H, W, C), dy (N, OH, OW, O) ->
// (kh, kw, C / groups, O), where kernel_size = {kh, kw}.
Output conv2d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv2DParams& params);

// x (N, D, H, W, C), kernel (kd, kh, kw, C / groups, O) -> (N, OD, OH, OW, O).
Output conv3d(Output x, Output kernel, const Conv3DParams& params);
// The gradient of conv3d for its input, input_size = {D, H, W} (sizes_from as in 2-D).
Output conv3d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv3DParams& params, Output sizes_from = {});
// conv2d_transpose's 3-D form.
Output conv3d_transpose(Output x, Output kernel, std::vector<std::int64_t> output_size, const Conv3DParams& params,
                        std::vector<std::int64_t> size_offsets);
// The gradient of conv3d for its kernel, kernel_size = {kd, kh, kw}.
Output conv3d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv3DParams& params);

// Output length of a convolution or pooling window over `size` elements.
std::int64_t conv_output_length(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t dilation,
                                std::int64_t pad_before, std::int64_t pad_after);

// Geometry of one convolution, read from attributes and shapes: what shape inference
// checks and the CPU kernels run on. Arrays run over the spatial axes, in order.
template <int SpatialRank>
struct ConvGeometry {
  std::int64_t n = 0, c = 0, o = 0, groups = 1, cg = 0, og = 0;  // cg, og: channels per group
  std::array<std::int64_t, SpatialRank> in{}, out{}, k{}, s{}, d{}, before{}, after{};
  std::int64_t line() const { return out[SpatialRank - 1]; }  // output positions per line
  std::int64_t lines_per_image() const {
    std::int64_t lines = 1;
    for (int a = 0; a + 1 < SpatialRank; ++a) lines *= out[static_cast<std::size_t>(a)];
    return lines;
  }
  std::int64_t lines() const { return n * lines_per_image(); }  // output lines in all
  std::int64_t kdim() const {  // one output's products: the window times the group's channels
    std::int64_t size = cg;
    for (std::int64_t w : k) size *= w;
    return size;
  }
  std::int64_t image() const {  // input floats per image
    std::int64_t size = c;
    for (std::int64_t i : in) size *= i;
    return size;
  }
};
using Conv3DGeometry = ConvGeometry<3>;

// The geometry of a conv node of this rank: x's shape (N, spatial..., C), the kernel's
// window, o output channels, and the params read in place from the node's attributes
// (kernels run this on every step: copying the params would allocate). Throws
// ShapeError, naming `op`, when the channels do not divide into groups or a window does
// not fit.
template <int SpatialRank>
ConvGeometry<SpatialRank> conv_geometry(std::string_view op, const Shape& x, std::span<const std::int64_t> window,
                                        std::int64_t o, const Attrs& attrs);
// The window of a kernel of shape (window..., C / groups, O): a view of `kernel`'s dims
// (no copy: kernels read it on every step), valid while `kernel` is.
template <int SpatialRank>
std::span<const std::int64_t> conv_window(const Shape& kernel);

// The 2-D geometry by name, as the 2-D CPU kernels (core/cpu/kernels/conv.cc) read it.
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
// conv_geometry<2>, named: x's shape (N, H, W, C), the window (kh, kw), o output channels.
Conv2DGeometry conv2d_geometry(const Shape& x, std::int64_t kh, std::int64_t kw, std::int64_t o, const Attrs& attrs,
                               std::string_view op);

}  // namespace strata::ops
