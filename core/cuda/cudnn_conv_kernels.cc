// conv2d, conv3d and their gradients on the GPU through cuDNN's convolutions, one
// implementation over the spatial rank (S = 2: NHWC; S = 3: NDHWC).
//
// Layouts. Tensors are channels last, as the CPU kernels store them: cuDNN's
// CUDNN_TENSOR_NHWC for 2-D, and for 3-D a 5-D descriptor with channels-innermost strides.
// Keras's kernel is (window..., C/groups, O), which no cuDNN filter layout is: it is
// transposed into a scratch copy in cuDNN's NHWC filter layout, KRSC = (O, kh, kw,
// C/groups) in 2-D and KTRSC = (O, kd, kh, kw, C/groups) in 3-D — the kernel read as a
// (window·C/groups) x O matrix, transposed — and the filter gradient is computed in that
// layout and transposed back.
//
// Padding. The op's pads are explicit, before and after each axis; cuDNN pads each axis
// by the same amount on both sides. Keras's "same" padding is asymmetric when the total
// is odd (the extra plane, row or column after). cuDNN is given the smaller side's pad on
// each axis, and the rest is made explicit: the input is copied into a zeroed, larger
// scratch tensor (forward, filter gradient), or the input gradient is computed for that
// larger tensor and its window copied out (input gradient: the adjoint of the padding).
// Symmetric pads ("valid", odd kernels with stride 1) use the tensors as they are.
//
// Arithmetic. Strict float32: the convolution's math type is CUDNN_FMA_MATH (no TF32
// tensor cores, which CUDNN_DEFAULT_MATH permits on Ampere and newer for float32 data).
// The algorithm is cuDNN's heuristic choice (cudnnGet*Algorithm_v7, no benchmarking;
// core/cuda/cudnn_conv_algorithms.h), preferring those reported as FMA-only and
// deterministic, and within those cuDNN's order; an algorithm that needs more than
// kMaxWorkspace is skipped. cuDNN's workspace, the transposed kernel and the padded
// tensor all come from the run context's workspace (core/cuda/workspace.h), asked for
// once per call before anything is enqueued.
//
// Plans. The descriptors, the ranked algorithms and the scratch layout depend only on the
// call's geometry: they are made by the first call with that geometry and kept in the
// run context's plan cache (core/cuda/cudnn_conv_plan_cache.h), so a later call looks
// its plan up and enqueues the transposes, the padding and cuDNN's call (the passes,
// core/cuda/cudnn_conv_passes.h).
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
#include "core/cuda/output_rounding.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/conv_ops.h"
#include "core/ops/fused_activation.h"

namespace strata::cuda {

namespace {

// One convolution's geometry over S spatial axes, as the op reads it (ops::ConvGeometry:
// x (n, in..., c), kernel (k..., cg, o), y (n, out..., o)), and what cuDNN's passes ask
// of it (core/cuda/cudnn_conv_passes.h).
template <int S>
struct ConvShape : ops::ConvGeometry<S> {
  using ops::ConvGeometry<S>::n;
  using ops::ConvGeometry<S>::c;
  using ops::ConvGeometry<S>::o;
  using ops::ConvGeometry<S>::cg;
  using ops::ConvGeometry<S>::in;
  using ops::ConvGeometry<S>::out;
  using ops::ConvGeometry<S>::before;
  using ops::ConvGeometry<S>::after;

  // The pad cuDNN applies on both sides of axis a.
  std::int64_t symmetric_pad(std::size_t a) const { return std::min(before[a], after[a]); }
  bool explicit_padding() const { return before != after; }
  // x within the explicitly padded input cuDNN sees (big == x when the pads are
  // symmetric); a 2-D convolution's has a depth of 1.
  PadShape padded() const {
    PadShape p;
    p.n = n, p.c = c;
    std::array<std::int64_t*, 3> size{&p.d, &p.h, &p.w}, big{&p.big_d, &p.big_h, &p.big_w};
    std::array<std::int64_t*, 3> offset{&p.front, &p.top, &p.left};
    for (std::size_t a = 0; a < S; ++a) {
      const std::size_t slot = a + 3 - S;  // 2-D fills (h, w)
      *size[slot] = in[a];
      *offset[slot] = before[a] - symmetric_pad(a);
      *big[slot] = in[a] + *offset[slot] + (after[a] - symmetric_pad(a));
    }
    return p;
  }
  std::int64_t window() const { return this->kdim(); }  // a filter's elements
  std::int64_t kernel_size() const { return window() * o; }
  std::int64_t positions() const { return this->lines() * this->line(); }  // output positions in all
};

// x the op's input, kernel (window..., cg, o) in Keras's layout (the op's attributes
// give the rest).
template <int S>
ConvShape<S> conv_shape(const KernelContext& ctx, const Shape& x, const Shape& kernel) {
  return {ops::conv_geometry<S>(ctx.node.op, x, ops::conv_window<S>(kernel), kernel[S + 1], ctx.node.attrs)};
}

// "(a, b[, c])", with `first` before and `last` after the values (a shape's n and channels).
template <std::size_t N>
std::string listed(const std::array<std::int64_t, N>& v, std::vector<std::int64_t> first = {},
                  std::vector<std::int64_t> last = {}) {
  std::vector<std::int64_t> all = std::move(first);
  all.insert(all.end(), v.begin(), v.end());
  all.insert(all.end(), last.begin(), last.end());
  std::string out;
  for (std::int64_t x : all) out += (out.empty() ? "(" : ", ") + std::to_string(x);
  return out + ")";
}

template <int S>
std::string describe(const ConvShape<S>& g) {
  return "input " + listed(g.in, {g.n}, {g.c}) + ", kernel " + listed(g.k, {}, {g.cg, g.o}) + ", strides " +
         listed(g.s) + ", dilations " + listed(g.d) + ", pads before " + listed(g.before) +
         " and after " + listed(g.after) + ", groups " + std::to_string(g.groups);
}

// The layout and shapes, for the message when cuDNN offers no algorithm.
template <int S>
std::string geometry(const ConvShape<S>& g) {
  return std::string(S == 2 ? "float32 NHWC" : "float32 NDHWC") + " with FMA math for " + describe(g);
}

// The convolution as cuDNN sees it, into the plan's descriptors: x the (explicitly
// padded) input, w the filter in cuDNN's layout, y the output, the symmetric rest of the
// padding in conv.
template <int S>
void describe_to_cudnn(const KernelContext& ctx, const ConvShape<S>& g, ConvPlan& plan) {
  const PadShape p = g.padded();
  if constexpr (S == 2) {
    set_nhwc(ctx, plan.x, g.n, g.c, p.big_h, p.big_w);
    set_nhwc(ctx, plan.y, g.n, g.o, g.out[0], g.out[1]);
    set_krsc(ctx, plan.w, g.o, g.cg, g.k[0], g.k[1]);
  } else {
    set_ndhwc(ctx, plan.x, g.n, g.c, p.big_d, p.big_h, p.big_w);
    set_ndhwc(ctx, plan.y, g.n, g.o, g.out[0], g.out[1], g.out[2]);
    set_ktrsc(ctx, plan.w, g.o, g.cg, g.k[0], g.k[1], g.k[2]);
  }
  std::array<int, S> pad{}, stride{}, dilation{};
  for (std::size_t a = 0; a < S; ++a) {
    pad[a] = cudnn_dim(ctx, g.symmetric_pad(a), "padding");
    stride[a] = cudnn_dim(ctx, g.s[a], "stride");
    dilation[a] = cudnn_dim(ctx, g.d[a], "dilation");
  }
  check(cudnnSetConvolutionNdDescriptor(plan.conv.get(), S, pad.data(), stride.data(), dilation.data(),
                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        ctx, "cudnnSetConvolutionNdDescriptor");
  check(cudnnSetConvolutionMathType(plan.conv.get(), CUDNN_FMA_MATH), ctx, "cudnnSetConvolutionMathType");
  check(cudnnSetConvolutionGroupCount(plan.conv.get(), cudnn_dim(ctx, g.groups, "group count")), ctx,
        "cudnnSetConvolutionGroupCount");
  // cuDNN's output size must be the op's: anything else means the descriptors above do
  // not say what the CPU kernel computes.
  std::array<int, S + 2> dims{};  // (n, c, spatial...)
  check(cudnnGetConvolutionNdForwardOutputDim(plan.conv.get(), plan.x.get(), plan.w.get(),
                                              static_cast<int>(dims.size()), dims.data()),
        ctx, "cudnnGetConvolutionNdForwardOutputDim");
  std::array<std::int64_t, S> spatial{};
  for (std::size_t a = 0; a < S; ++a) spatial[a] = dims[a + 2];
  if (dims[0] != g.n || dims[1] != g.o || spatial != g.out) {
    throw Error("CUDA kernel of op '" + ctx.node.op + "' (node '" + ctx.node.name + "'): cuDNN's output " +
                listed(spatial, {dims[0]}, {dims[1]}) + " is not the op's " + listed(g.out, {g.n}, {g.o}) + " for " +
                describe(g));
  }
}

void fill_zeros(const KernelContext& ctx, Tensor& t, CUstream_st* stream) {
  check(cudaMemsetAsync(floats(t), 0, float_bytes(t.size()), stream), ctx, "cudaMemsetAsync");
}

// y = conv(x, kernel) (+ bias, relu: conv2d's fused epilogue).
template <int S>
void forward(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& y = ctx.output(0);
  const float* bias = ctx.inputs.size() == 3 ? floats(ctx.input(2)) : nullptr;
  if (S == 2 && ctx.node.attrs.get_or<bool>("residual", false)) {
    throw NotImplementedError("conv2d '" + ctx.node.name + "': a fused residual has no CUDA kernel");
  }
  if (S == 2 && ctx.node.attrs.get_or<bool>("input_scale", false)) {
    throw NotImplementedError("conv2d '" + ctx.node.name + "': a fused input scale has no CUDA kernel");
  }
  if (const ops::FusedActivation a = ops::fused_activation(ctx.node);
      S == 2 && (a == ops::FusedActivation::relu6 || a == ops::FusedActivation::silu)) {
    // The inference rewrite fuses these only into Programs on the CPU (compiled_model.cc).
    throw NotImplementedError("conv2d '" + ctx.node.name + "': a fused " +
                              (a == ops::FusedActivation::silu ? "silu" : "relu6") + " has no CUDA kernel");
  }
  const bool relu = S == 2 && ops::fuses_relu(ctx.node);
  if (y.size() == 0) return;
  const ConvShape<S> g = conv_shape<S>(ctx, x.shape(), k.shape());
  if (g.cg == 0) {  // an empty sum: the bias (and relu) alone
    fill_zeros(ctx, y, stream);
  } else {
    run_forward_pass(ctx, run, g);
  }
  if (bias || relu) {
    launch_bias_relu(floats(y), bias, relu, g.positions(), g.o, stream);
    check_launch(ctx);
  }
  round_output_in_place(ctx, floats(y), y.size(), stream);
}

template <int S>
void backprop_input(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& k = ctx.input(1);
  Tensor& dx = ctx.output(0);
  if (dx.size() == 0) return;
  const ConvShape<S> g = conv_shape<S>(ctx, dx.shape(), k.shape());
  if (g.o == 0) {  // no output channel sends a gradient back
    fill_zeros(ctx, dx, run.stream().get());
    return;
  }
  run_backward_data_pass(ctx, run, g);
}

template <int S>
void backprop_filter(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  Tensor& dk = ctx.output(0);
  if (dk.size() == 0) return;
  const ConvShape<S> g = conv_shape<S>(ctx, x.shape(), dk.shape());
  if (g.n == 0) {  // a sum over no samples
    fill_zeros(ctx, dk, run.stream().get());
    return;
  }
  run_backward_filter_pass(ctx, run, g);
}

}  // namespace

void conv2d(KernelContext& ctx) { forward<2>(ctx); }
void conv2d_backprop_input(KernelContext& ctx) { backprop_input<2>(ctx); }
void conv2d_backprop_filter(KernelContext& ctx) { backprop_filter<2>(ctx); }

void conv3d(KernelContext& ctx) { forward<3>(ctx); }
void conv3d_backprop_input(KernelContext& ctx) { backprop_input<3>(ctx); }
void conv3d_backprop_filter(KernelContext& ctx) { backprop_filter<3>(ctx); }

void register_conv_kernels(OpRegistry& r) {
  add_kernel(r, "conv2d", conv2d);
  add_kernel(r, "conv2d_backprop_input", conv2d_backprop_input);
  add_kernel(r, "conv2d_backprop_filter", conv2d_backprop_filter);
  add_kernel(r, "conv3d", conv3d);
  add_kernel(r, "conv3d_backprop_input", conv3d_backprop_input);
  add_kernel(r, "conv3d_backprop_filter", conv3d_backprop_filter);
}

}  // namespace strata::cuda
