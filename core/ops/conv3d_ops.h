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

#include <cstdint>
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

}  // namespace strata::ops
