// 3-D convolution ops, NDHWC layout (channels last), cross-correlation as in Keras:
//   out[n, z, y, x, o] = Σ_{kz,ky,kx,c} in[n, z·sd + kz·dd − front, y·sh + ky·dh − top,
//                                         x·sw + kx·dw − left, g·Cg + c] · kernel[kz, ky, kx, c, o]
// kernel is (kd, kh, kw, C / groups, O), Keras's Conv3D layout; g = o / (O / groups).
// Padding is explicit (front, back, top, bottom, left, right).
//
// As with conv2d (conv_ops.h), the three ops are bilinear and each one's adjoints are the
// other two, so all are differentiable to any order:
//   y  = conv3d(x, k)                  dx = conv3d_backprop_input(dy, k)
//                                      dk = conv3d_backprop_filter(x, dy)
// Conv3DTranspose is conv3d_backprop_input with its kernel (kd, kh, kw, out, in).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

struct Conv3DParams {
  std::vector<std::int64_t> strides{1, 1, 1};
  std::vector<std::int64_t> dilations{1, 1, 1};
  std::vector<std::int64_t> pads{0, 0, 0, 0, 0, 0};  // front, back, top, bottom, left, right
  std::int64_t groups = 1;
};

// x (N, D, H, W, C), kernel (kd, kh, kw, C / groups, O) -> (N, OD, OH, OW, O).
Output conv3d(Output x, Output kernel, const Conv3DParams& params);
// The gradient of conv3d for its input: dy (N, OD, OH, OW, O) -> (N, D, H, W, C), where
// input_size = {D, H, W}.
Output conv3d_backprop_input(Output dy, Output kernel, std::vector<std::int64_t> input_size,
                             const Conv3DParams& params);
// The gradient of conv3d for its kernel: x, dy -> (kd, kh, kw, C / groups, O), where
// kernel_size = {kd, kh, kw}.
Output conv3d_backprop_filter(Output x, Output dy, std::vector<std::int64_t> kernel_size,
                              const Conv3DParams& params);

// Geometry of one 3-D convolution, what shape inference checks and the CPU kernels
// (core/cpu/kernels/conv3d.cc) run on; arrays are (depth, height, width).
struct Conv3DGeometry {
  std::int64_t n = 0, c = 0, o = 0, groups = 1, cg = 0, og = 0;
  std::array<std::int64_t, 3> in{}, out{}, k{}, s{}, d{}, before{};
  std::int64_t line() const { return out[2]; }                      // output positions per line
  std::int64_t lines() const { return n * out[0] * out[1]; }         // output lines in all
  std::int64_t lines_per_image() const { return out[0] * out[1]; }
  std::int64_t kdim() const { return k[0] * k[1] * k[2] * cg; }
  std::int64_t image() const { return in[0] * in[1] * in[2] * c; }  // input floats per image
};

// The geometry of a conv3d-family node: x's shape (N, D, H, W, C), the kernel window
// (kd, kh, kw), o output channels and the params read in place from the node's attributes
// (kernels run this on every step). Throws ShapeError, naming `op`, when the channels do
// not divide into groups or a window does not fit.
Conv3DGeometry conv3d_geometry(std::string_view op, const Shape& x, const std::vector<std::int64_t>& window,
                               std::int64_t o, const Attrs& attrs);
// The window (kd, kh, kw) of a kernel of shape (kd, kh, kw, C / groups, O).
std::vector<std::int64_t> conv3d_window(const Shape& kernel);

}  // namespace strata::ops
