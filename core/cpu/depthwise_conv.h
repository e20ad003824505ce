// Strata's direct depthwise convolution (NHWC): every output channel reads one input
// channel, so the convolution is kh·kw multiply-adds per output, with no product to
// share between channels. Run as a grouped convolution (im2col, then one GEMM per
// channel) it spent its time copying windows and calling a GEMM of width depth_multiplier
// once per channel; here the channels are the vector lanes: each output pixel sums its
// taps over a block of channels held in registers, and the block's weights stay in L1
// for a whole output row (issue #37, docs/performance.md).
#pragma once

#include <cstdint>

#include "core/cpu/epilogue.h"
#include "core/ops/conv_ops.h"

namespace strata::cpu {

// True when conv2d's geometry is a depthwise convolution: one input channel per group.
inline bool is_depthwise(const ops::Conv2DGeometry& g) { return g.groups > 1 && g.cg == 1 && g.groups == g.c; }

// y (N, OH, OW, C·dm) = the depthwise convolution of x (N, H, W, C) with k (kh, kw, 1,
// C·dm) (output channel c·dm + m reads input channel c), plus bias (C·dm floats, or
// null), then the activation (relu, relu6, silu). g must satisfy is_depthwise. Runs on the worker
// pool.
void depthwise_conv2d(const ops::Conv2DGeometry& g, const float* x, const float* k, const float* bias, Activation activation,
                      float* y);

// Its gradients for a depth multiplier of 1 (g.og == 1; depthwise_conv_grad.cc): dx (N, H,
// W, C) from dy (N, OH, OW, C) and k, and dk (kh, kw, 1, C) from x and dy. dk's sums run
// over blocks of images, added in order: the same bits on any thread count.
void depthwise_conv2d_input_grad(const ops::Conv2DGeometry& g, const float* dy, const float* k, float* dx);
void depthwise_conv2d_filter_grad(const ops::Conv2DGeometry& g, const float* x, const float* dy, float* dk);

}  // namespace strata::cpu
