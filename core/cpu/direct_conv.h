// Strata's direct convolution for few input channels (NHWC): a network's first layer
// (MobileNetV2's and EfficientNet's 3x3 stride-2 stem on RGB, ConvNeXt's 4x4 patches,
// ResNet-20's 3x3 stem). Its im2col rows are a handful of floats (27 for a 3x3 window of
// 3 channels), so im2col copied three floats at a time and the GEMM's tiles, reading and
// writing C around 27 steps of k, ran at a fifth of the FMA peak: the stem was MobileNetV2's
// slowest layer at batch 32 (a tenth of the model). Here each output pixel's channels are
// vectors of accumulators in registers, several pixels at a time, and every tap is a
// broadcast input times a row of the kernel (issue #37, docs/performance.md).
#pragma once

#include <cstdint>

#include "core/cpu/epilogue.h"
#include "core/ops/conv_ops.h"

namespace strata::cpu {

// The shapes the direct kernel takes, measured against im2col + GEMM (docs/performance.md):
// 3x3 stride 2 to 16 and 32 channels, 7x7 stride 2 to 64 and 3x3 stride 1 to 16 ran
// 1.3-2x as fast; ConvNeXt's 4x4 stride-4 patches to 96 channels 8% slower.
inline constexpr std::int64_t kDirectConvChannels = 4;
inline constexpr std::int64_t kDirectConvDepth = 160;
inline constexpr std::int64_t kDirectConvOutputs = 64;

// True when conv2d's geometry takes the direct kernel: one group, dilation 1, at most
// kDirectConvChannels input channels and a window of at most kDirectConvDepth products
// per output, and no more output channels than a row of accumulators holds
// (direct_conv.cc). STRATA_DIRECT_CONV=0 turns it off.
bool direct_conv_applies(const ops::Conv2DGeometry& g);

// The floats of one vector of output channels in the library's build (16 with AVX-512,
// 8 with AVX2), and the most output channels the kernel takes: for callers compiled
// without the library's instruction set (the tests).
std::int64_t direct_conv_lanes();
std::int64_t direct_conv_most_outputs();

// y (N, OH, OW, O) = conv(x (N, H, W, C), k (kh, kw, C, O)) over g, then the epilogue
// (bias, residual, activation) on each output as it is written. g must satisfy
// direct_conv_applies. Runs on the worker pool.
void direct_conv2d(const ops::Conv2DGeometry& g, const float* x, const float* k, float* y, const Epilogue& epilogue);

}  // namespace strata::cpu
