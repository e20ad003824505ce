// conv2d and its two gradients on the GPU through cuDNN's convolutions.
//
// Layouts. Tensors are NHWC, as cuDNN's CUDNN_TENSOR_NHWC reads them. Keras's kernel is
// (kh, kw, C/groups, O), which no cuDNN filter layout is: it is transposed into a scratch
// copy in cuDNN's NHWC filter layout, KRSC = (O, kh, kw, C/groups) — the kernel read as
// a (kh·kw·C/groups) x O matrix, transposed — and the filter gradient is computed in that
// layout and transposed back.
//
// Padding. The op's pads are explicit (top, bottom, left, right); cuDNN pads each axis by
// the same amount on both sides. Keras's "same" padding is asymmetric when the total is
// odd (the extra row or column at the bottom or right). cuDNN is given the smaller side's
// pad on each axis, and the rest is made explicit: the input is copied into a zeroed,
// larger scratch tensor (forward, filter gradient), or the input gradient is computed
// for that larger tensor and its window copied out (input gradient: the adjoint of the
// padding). Symmetric pads ("valid", odd kernels with stride 1) use the tensors as they
// are.
//
// Arithmetic. Strict float32: the convolution's math type is CUDNN_FMA_MATH (no TF32
// tensor cores, which CUDNN_DEFAULT_MATH permits on Ampere and newer for float32 data).
// The algorithm is cuDNN's heuristic choice (cudnnGet*Algorithm_v7, no benchmarking;
// core/cuda/cudnn_conv_algorithms.h, shared with conv3d),
// preferring those reported as FMA-only and deterministic, and within those cuDNN's
// order; an algorithm that needs more than kMaxWorkspace is skipped. cuDNN's workspace,
// the transposed kernel and the padded tensor all come from the run context's workspace
// (core/cuda/workspace.h), asked for once per call before anything is enqueued.
//
// Plans. The descriptors, the ranked algorithms and the scratch layout depend only on the
// call's geometry: they are made by the first call with that geometry and kept in the
// run context's plan cache (core/cuda/cudnn_conv_plan_cache.h), so a later call looks
// its plan up and enqueues the transposes, the padding and cuDNN's call.
//
// conv2d's fused bias and relu run after the convolution in one pass (dense's epilogue,
// launch_bias_relu).
#include "core/cuda/conv_kernels.h"

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
#include "core/cuda/conv_launch.h"
#include "core/cuda/cudnn_check.h"
#include "core/cuda/cudnn_conv_algorithms.h"
#include "core/cuda/cudnn_conv_passes.h"
#include "core/cuda/cudnn_conv_plan_cache.h"
#include "core/cuda/cudnn_descriptors.h"
#include "core/cuda/cudnn_handle.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/elementwise_launch.h"
#include "core/cuda/run_context.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/fused_relu.h"

namespace strata::cuda {

namespace {

// One convolution's geometry, read as core/ops/conv_ops.cc reads it: x (n, h, w, c),
// kernel (kh, kw, cg, o), y (n, oh, ow, o).
struct ConvShape {
  std::int64_t n = 0, h = 0, w = 0, c = 0;
  std::int64_t oh = 0, ow = 0, o = 0;
  std::int64_t kh = 0, kw = 0, cg = 0;
  std::int64_t sh = 1, sw = 1, dh = 1, dw = 1;
  std::int64_t pt = 0, pb = 0, pl = 0, pr = 0;
  std::int64_t groups = 1;

  // The pad cuDNN applies on both sides of an axis, and the explicit rest.
  std::int64_t pad_h() const { return std::min(pt, pb); }
  std::int64_t pad_w() const { return std::min(pl, pr); }
  bool explicit_padding() const { return pt != pb || pl != pr; }
  // x within the explicitly padded input cuDNN sees (big == x when the pads are symmetric).
  PadShape padded() const {
    PadShape p;
    p.n = n, p.h = h, p.w = w, p.c = c;
    p.top = pt - pad_h(), p.left = pl - pad_w();
    p.big_h = h + p.top + (pb - pad_h());
    p.big_w = w + p.left + (pr - pad_w());
    return p;
  }
  std::int64_t window() const { return kh * kw * cg; }  // a filter's elements
  std::int64_t kernel_size() const { return window() * o; }
};

ConvShape conv_shape(const KernelContext& ctx, const Shape& x, const Shape& kernel, const Shape& y) {
  const Attrs& a = ctx.node.attrs;
  const auto& strides = a.get<std::vector<std::int64_t>>("strides");
  const auto& dilations = a.get<std::vector<std::int64_t>>("dilations");
  const auto& pads = a.get<std::vector<std::int64_t>>("pads");
  ConvShape g;
  g.n = x[0], g.h = x[1], g.w = x[2], g.c = x[3];
  g.kh = kernel[0], g.kw = kernel[1], g.cg = kernel[2], g.o = kernel[3];
  g.oh = y[1], g.ow = y[2];
  g.sh = strides.at(0), g.sw = strides.at(1), g.dh = dilations.at(0), g.dw = dilations.at(1);
  g.pt = pads.at(0), g.pb = pads.at(1), g.pl = pads.at(2), g.pr = pads.at(3);
  g.groups = a.get<std::int64_t>("groups");
  return g;
}

std::string describe(const ConvShape& g) {
  auto s = [](std::int64_t v) { return std::to_string(v); };
  return "input (" + s(g.n) + ", " + s(g.h) + ", " + s(g.w) + ", " + s(g.c) + "), kernel (" + s(g.kh) + ", " +
         s(g.kw) + ", " + s(g.cg) + ", " + s(g.o) + "), strides (" + s(g.sh) + ", " + s(g.sw) + "), dilations (" +
         s(g.dh) + ", " + s(g.dw) + "), pads (" + s(g.pt) + ", " + s(g.pb) + ", " + s(g.pl) + ", " + s(g.pr) +
         "), groups " + s(g.groups);
}

// The convolution as cuDNN sees it, into the plan's descriptors: x the (explicitly
// padded) input, w the KRSC filter, y the output, the symmetric rest of the padding in conv.
void describe_to_cudnn(const KernelContext& ctx, const ConvShape& g, ConvPlan& plan) {
  const PadShape p = g.padded();
  set_nhwc(ctx, plan.x, g.n, g.c, p.big_h, p.big_w);
  set_nhwc(ctx, plan.y, g.n, g.o, g.oh, g.ow);
  set_krsc(ctx, plan.w, g.o, g.cg, g.kh, g.kw);
  check(cudnnSetConvolution2dDescriptor(plan.conv.get(), cudnn_dim(ctx, g.pad_h(), "padding"),
                                        cudnn_dim(ctx, g.pad_w(), "padding"), cudnn_dim(ctx, g.sh, "stride"),
                                        cudnn_dim(ctx, g.sw, "stride"), cudnn_dim(ctx, g.dh, "dilation"),
                                        cudnn_dim(ctx, g.dw, "dilation"), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        ctx, "cudnnSetConvolution2dDescriptor");
  check(cudnnSetConvolutionMathType(plan.conv.get(), CUDNN_FMA_MATH), ctx, "cudnnSetConvolutionMathType");
  check(cudnnSetConvolutionGroupCount(plan.conv.get(), cudnn_dim(ctx, g.groups, "group count")), ctx,
        "cudnnSetConvolutionGroupCount");
  // cuDNN's output size must be the op's: anything else means the descriptors above do
  // not say what the CPU kernel computes.
  int n = 0, c = 0, h = 0, w = 0;
  check(cudnnGetConvolution2dForwardOutputDim(plan.conv.get(), plan.x.get(), plan.w.get(), &n, &c, &h, &w), ctx,
        "cudnnGetConvolution2dForwardOutputDim");
  if (n != g.n || c != g.o || h != g.oh || w != g.ow) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): cuDNN's output (" +
                std::to_string(n) + ", " + std::to_string(h) + ", " + std::to_string(w) + ", " + std::to_string(c) +
                ") is not the op's (" + std::to_string(g.n) + ", " + std::to_string(g.oh) + ", " +
                std::to_string(g.ow) + ", " + std::to_string(g.o) + ") for " + describe(g));
  }
}

// The layout and shapes, for the message when cuDNN offers no algorithm.
std::string geometry(const ConvShape& g) { return "float32 NHWC with FMA math for " + describe(g); }


}  // namespace

void conv2d(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& y = ctx.output(0);
  const float* bias = ctx.inputs.size() == 3 ? floats(ctx.input(2)) : nullptr;
  const bool relu = ops::fuses_relu(ctx.node);
  if (y.size() == 0) return;
  const ConvShape g = conv_shape(ctx, x.shape(), k.shape(), y.shape());
  if (g.cg == 0) {  // an empty sum: the bias (and relu) alone
    check(cudaMemsetAsync(floats(y), 0, float_bytes(y.size()), stream), ctx, "cudaMemsetAsync");
  } else {
    run_forward_pass(ctx, run, g);
  }
  if (bias || relu) {
    launch_bias_relu(floats(y), bias, relu, g.n * g.oh * g.ow, g.o, stream);
    check_launch(ctx);
  }
}

void conv2d_backprop_input(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& dy = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& dx = ctx.output(0);
  if (dx.size() == 0) return;
  const ConvShape g = conv_shape(ctx, dx.shape(), k.shape(), dy.shape());
  if (g.o == 0) {  // no output channel sends a gradient back
    check(cudaMemsetAsync(floats(dx), 0, float_bytes(dx.size()), run.stream().get()), ctx, "cudaMemsetAsync");
    return;
  }
  run_backward_data_pass(ctx, run, g);
}

void conv2d_backprop_filter(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  Tensor& dk = ctx.output(0);
  if (dk.size() == 0) return;
  const ConvShape g = conv_shape(ctx, x.shape(), dk.shape(), dy.shape());
  if (g.n == 0) {  // a sum over no images
    check(cudaMemsetAsync(floats(dk), 0, float_bytes(dk.size()), run.stream().get()), ctx, "cudaMemsetAsync");
    return;
  }
  run_backward_filter_pass(ctx, run, g);
}

}  // namespace strata::cuda
