// conv3d and its two gradients on the GPU through cuDNN's N-d convolutions, as conv2d's
// kernels do it in two dimensions (core/cuda/cudnn_conv_kernels.cc says why each step is
// so); what differs is only the rank.
//
// Layouts. Tensors are NDHWC, as the CPU kernels store them, described to cuDNN as 5-D
// tensors with channels-innermost strides. Keras's kernel (kd, kh, kw, C/groups, O) is
// transposed into cuDNN's NHWC filter layout KTRSC = (O, kd, kh, kw, C/groups) in
// scratch, and the filter gradient is computed in that layout and transposed back.
//
// Padding. The op's six pads (front, back, top, bottom, left, right) are explicit; cuDNN
// pads both sides of an axis alike. cuDNN gets the smaller pad of each axis and the rest
// is made explicit: the input copied into a zeroed, larger scratch tensor (forward,
// filter gradient), or the input gradient computed for that tensor and its window copied
// out (input gradient). Keras's "same" with an odd total (the extra plane, row or column
// after) takes that path; "valid" and odd kernels at stride 1 do not.
//
// Arithmetic. Strict float32: CUDNN_FMA_MATH, no TF32. The algorithm is chosen as for
// conv2d (core/cuda/cudnn_conv_algorithms.h): cuDNN's heuristics, FMA-only and
// deterministic first, at most 1 GiB of workspace. Scratch (the KTRSC filter, the padded
// tensor, cuDNN's workspace) is the run context's workspace, asked for once per call.
//
// Plans. As conv2d's: descriptors, ranked algorithms and scratch layout are made by the
// first call of a geometry and kept in the run context's plan cache
// (core/cuda/cudnn_conv_plan_cache.h).
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/conv_kernels.h"
#include "core/cuda/conv_launch.h"
#include "core/cuda/cudnn_check.h"
#include "core/cuda/cudnn_conv_algorithms.h"
#include "core/cuda/cudnn_conv_passes.h"
#include "core/cuda/cudnn_conv_plan_cache.h"
#include "core/cuda/cudnn_descriptors.h"
#include "core/cuda/cudnn_handle.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/run_context.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

using Axes = std::array<std::int64_t, 3>;  // (depth, height, width)

// One 3-D convolution's geometry, read as core/ops/conv3d_ops.cc reads it: x (n, d, h, w,
// c), kernel (kd, kh, kw, cg, o), y (n, od, oh, ow, o).
struct Conv3dShape {
  std::int64_t n = 0, c = 0, o = 0, cg = 0, groups = 1;
  Axes in{}, out{}, k{}, strides{}, dilations{}, before{}, after{};

  // The pad cuDNN applies on both sides of axis a.
  std::int64_t symmetric_pad(std::size_t a) const { return std::min(before[a], after[a]); }
  bool explicit_padding() const { return before != after; }
  // x within the explicitly padded input cuDNN sees (big == x when the pads are symmetric).
  PadShape padded() const {
    PadShape p;
    p.n = n, p.d = in[0], p.h = in[1], p.w = in[2], p.c = c;
    p.front = before[0] - symmetric_pad(0), p.top = before[1] - symmetric_pad(1), p.left = before[2] - symmetric_pad(2);
    p.big_d = in[0] + p.front + (after[0] - symmetric_pad(0));
    p.big_h = in[1] + p.top + (after[1] - symmetric_pad(1));
    p.big_w = in[2] + p.left + (after[2] - symmetric_pad(2));
    return p;
  }
  std::int64_t window() const { return k[0] * k[1] * k[2] * cg; }  // a filter's elements
  std::int64_t kernel_size() const { return window() * o; }
};

Conv3dShape conv3d_shape(const KernelContext& ctx, const Shape& x, const Shape& kernel, const Shape& y) {
  const Attrs& a = ctx.node.attrs;
  const auto& strides = a.get<std::vector<std::int64_t>>("strides");
  const auto& dilations = a.get<std::vector<std::int64_t>>("dilations");
  const auto& pads = a.get<std::vector<std::int64_t>>("pads");
  Conv3dShape g;
  g.n = x[0], g.c = x[4];
  g.cg = kernel[3], g.o = kernel[4];
  g.groups = a.get<std::int64_t>("groups");
  for (std::size_t i = 0; i < 3; ++i) {
    g.in[i] = x[static_cast<int>(i) + 1];
    g.out[i] = y[static_cast<int>(i) + 1];
    g.k[i] = kernel[static_cast<int>(i)];
    g.strides[i] = strides.at(i), g.dilations[i] = dilations.at(i);
    g.before[i] = pads.at(2 * i), g.after[i] = pads.at(2 * i + 1);
  }
  return g;
}

std::string triple(const Axes& v) {
  return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) + ")";
}

std::string describe(const Conv3dShape& g) {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  return "input (" + s(g.n) + ", " + s(g.in[0]) + ", " + s(g.in[1]) + ", " + s(g.in[2]) + ", " + s(g.c) +
         "), kernel (" + s(g.k[0]) + ", " + s(g.k[1]) + ", " + s(g.k[2]) + ", " + s(g.cg) + ", " + s(g.o) +
         "), strides " + triple(g.strides) + ", dilations " + triple(g.dilations) + ", pads before " +
         triple(g.before) + " and after " + triple(g.after) + ", groups " + s(g.groups);
}

std::string geometry(const Conv3dShape& g) { return "float32 NDHWC with FMA math for " + describe(g); }

// The convolution as cuDNN sees it, into the plan's descriptors: x the (explicitly
// padded) input, w the KTRSC filter, y the output, the symmetric rest of the padding in conv.
void describe_to_cudnn(const KernelContext& ctx, const Conv3dShape& g, ConvPlan& plan) {
  const PadShape p = g.padded();
  set_ndhwc(ctx, plan.x, g.n, g.c, p.big_d, p.big_h, p.big_w);
  set_ndhwc(ctx, plan.y, g.n, g.o, g.out[0], g.out[1], g.out[2]);
  set_ktrsc(ctx, plan.w, g.o, g.cg, g.k[0], g.k[1], g.k[2]);
  std::array<int, 3> pad{}, stride{}, dilation{};
  for (std::size_t a = 0; a < 3; ++a) {
    pad[a] = cudnn_dim(ctx, g.symmetric_pad(a), "padding");
    stride[a] = cudnn_dim(ctx, g.strides[a], "stride");
    dilation[a] = cudnn_dim(ctx, g.dilations[a], "dilation");
  }
  check(cudnnSetConvolutionNdDescriptor(plan.conv.get(), 3, pad.data(), stride.data(), dilation.data(),
                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        ctx, "cudnnSetConvolutionNdDescriptor");
  check(cudnnSetConvolutionMathType(plan.conv.get(), CUDNN_FMA_MATH), ctx, "cudnnSetConvolutionMathType");
  check(cudnnSetConvolutionGroupCount(plan.conv.get(), cudnn_dim(ctx, g.groups, "group count")), ctx,
        "cudnnSetConvolutionGroupCount");
  // cuDNN's output size must be the op's: anything else means the descriptors above do
  // not say what the CPU kernel computes.
  std::array<int, 5> dims{};  // (n, c, d, h, w)
  check(cudnnGetConvolutionNdForwardOutputDim(plan.conv.get(), plan.x.get(), plan.w.get(),
                                              static_cast<int>(dims.size()), dims.data()),
        ctx, "cudnnGetConvolutionNdForwardOutputDim");
  if (dims[0] != g.n || dims[1] != g.o || dims[2] != g.out[0] || dims[3] != g.out[1] || dims[4] != g.out[2]) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): cuDNN's output (" +
                std::to_string(dims[0]) + ", " + std::to_string(dims[2]) + ", " + std::to_string(dims[3]) + ", " +
                std::to_string(dims[4]) + ", " + std::to_string(dims[1]) + ") is not the op's (" +
                std::to_string(g.n) + ", " + std::to_string(g.out[0]) + ", " + std::to_string(g.out[1]) + ", " +
                std::to_string(g.out[2]) + ", " + std::to_string(g.o) + ") for " + describe(g));
  }
}


void fill_zeros(const KernelContext& ctx, Tensor& t, CUstream_st* stream) {
  check(cudaMemsetAsync(floats(t), 0, float_bytes(t.size()), stream), ctx, "cudaMemsetAsync");
}

}  // namespace

void conv3d(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& y = ctx.output(0);
  if (y.size() == 0) return;
  const Conv3dShape g = conv3d_shape(ctx, x.shape(), k.shape(), y.shape());
  if (g.cg == 0) {  // an empty sum
    fill_zeros(ctx, y, run.stream().get());
    return;
  }
  run_forward_pass(ctx, run, g);
}

void conv3d_backprop_input(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& dy = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& dx = ctx.output(0);
  if (dx.size() == 0) return;
  const Conv3dShape g = conv3d_shape(ctx, dx.shape(), k.shape(), dy.shape());
  if (g.o == 0) {  // no output channel sends a gradient back
    fill_zeros(ctx, dx, run.stream().get());
    return;
  }
  run_backward_data_pass(ctx, run, g);
}

void conv3d_backprop_filter(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  Tensor& dk = ctx.output(0);
  if (dk.size() == 0) return;
  const Conv3dShape g = conv3d_shape(ctx, x.shape(), dk.shape(), dy.shape());
  if (g.n == 0) {  // a sum over no volumes
    fill_zeros(ctx, dk, run.stream().get());
    return;
  }
  run_backward_filter_pass(ctx, run, g);
}

}  // namespace strata::cuda
