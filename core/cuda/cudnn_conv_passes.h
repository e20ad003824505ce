// The three passes of a convolution on its cuDNN plan, whatever the rank: conv2d's and
// conv3d's kernels (core/cuda/cudnn_conv_kernels.cc, ConvShape<2> and ConvShape<3>) differ
// only in how they describe their geometry to cuDNN; what each pass enqueues once
// it has its plan is the same. Each pass:
//   forward:         the filter into cuDNN's layout, the input padded where the pads are
//                    uneven, cudnnConvolutionForward into the op's output;
//   backward data:   the filter into cuDNN's layout, cudnnConvolutionBackwardData (into
//                    the padded tensor where the pads are uneven, then its window copied
//                    out: the adjoint of the padding copy);
//   backward filter: the input padded where the pads are uneven,
//                    cudnnConvolutionBackwardFilter in cuDNN's layout, transposed back.
// A Geometry (conv2d's or conv3d's, read from the op's shapes and attributes) has
// window() (a filter's elements: the kernel's spatial size times its input channels per
// group), o (output channels), groups, padded(), explicit_padding() and kernel_size();
// and beside it, found by argument-dependent lookup, describe_to_cudnn(ctx, g, plan)
// (the plan's descriptors) and geometry(g) (its description, for the message when cuDNN
// offers no algorithm). The callers handle the empty sums (no input channel, no output
// channel, no sample) before a pass.
#pragma once

#include <cudnn.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/conv_launch.h"
#include "core/cuda/cudnn_conv_algorithms.h"
#include "core/cuda/cudnn_conv_plan_cache.h"
#include "core/cuda/cudnn_handle.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/tensor.h"

namespace strata::cuda {

// The run context's plan for `pass` of the convolution x (input), kernel, y (output) —
// the op's shapes, g read from them —, made on the first call with this geometry.
template <typename Geometry>
ConvPlan& conv_plan(const KernelContext& ctx, RunContext& run, ConvPass pass, const Tensor& x, const Shape& kernel,
                    const Shape& y, const Geometry& g) {
  const Attrs& a = ctx.node.attrs;
  const ConvPlanKey key = conv_plan_key(pass, x.dtype(), x.shape().dims(), kernel.dims(), y.dims(),
                                        a.get<std::vector<std::int64_t>>("strides"),
                                        a.get<std::vector<std::int64_t>>("dilations"),
                                        a.get<std::vector<std::int64_t>>("pads"), g.groups);
  return run.conv_plans().find_or_build(key, [&] {
    auto plan = std::make_unique<ConvPlan>(ctx);
    describe_to_cudnn(ctx, g, *plan);
    choose_algorithms(ctx, run.cudnn().get(), pass, *plan, [&] { return geometry(g); });
    const PadShape p = g.padded();  // a 2-D convolution's has a depth of 1
    plan->explicit_padding = g.explicit_padding();
    plan->padded = p;
    plan->filter_bytes = aligned(float_bytes(g.kernel_size()));
    plan->padded_bytes = g.explicit_padding() ? aligned(float_bytes(p.n * p.big_d * p.big_h * p.big_w * p.c)) : 0;
    return plan;
  });
}

// y = conv(x, kernel): ctx's inputs 0 and 1 into its output 0.
template <typename Geometry>
void run_forward_pass(KernelContext& ctx, RunContext& run, const Geometry& g) {
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& y = ctx.output(0);
  ConvPlan& plan = conv_plan(ctx, run, ConvPass::forward, x, k.shape(), y.shape(), g);
  cudnnHandle_t handle = run.cudnn().get();
  const ConvScratch s = carve(run, plan);
  launch_transpose(floats(k), s.filter, g.window(), g.o, stream);
  const float* input = floats(x);
  if (plan.explicit_padding) {
    launch_pad_channels_last(floats(x), s.padded, plan.padded, stream);
    input = s.padded;
  }
  check_launch(ctx);
  run_plan(
      ctx, plan, "forward", "cudnnConvolutionForward",
      [&](const Candidate& c) {
        return cudnnConvolutionForward(handle, &kOne, plan.x.get(), input, plan.w.get(), s.filter, plan.conv.get(),
                                       static_cast<cudnnConvolutionFwdAlgo_t>(c.algo), s.workspace, c.bytes, &kZero,
                                       plan.y.get(), floats(y));
      },
      [&] { return geometry(g); });
}

// dx from dy and the kernel: ctx's inputs 0 (dy) and 1 (kernel) into its output 0.
template <typename Geometry>
void run_backward_data_pass(KernelContext& ctx, RunContext& run, const Geometry& g) {
  CUstream_st* stream = run.stream().get();
  const Tensor& dy = ctx.input(0);
  const Tensor& k = ctx.input(1);
  Tensor& dx = ctx.output(0);
  ConvPlan& plan = conv_plan(ctx, run, ConvPass::backward_data, dx, k.shape(), dy.shape(), g);
  cudnnHandle_t handle = run.cudnn().get();
  const ConvScratch s = carve(run, plan);
  launch_transpose(floats(k), s.filter, g.window(), g.o, stream);
  check_launch(ctx);
  float* out = plan.explicit_padding ? s.padded : floats(dx);
  run_plan(
      ctx, plan, "backward-data", "cudnnConvolutionBackwardData",
      [&](const Candidate& c) {
        return cudnnConvolutionBackwardData(handle, &kOne, plan.w.get(), s.filter, plan.y.get(), floats(dy),
                                            plan.conv.get(), static_cast<cudnnConvolutionBwdDataAlgo_t>(c.algo),
                                            s.workspace, c.bytes, &kZero, plan.x.get(), out);
      },
      [&] { return geometry(g); });
  if (plan.explicit_padding) {
    launch_crop_channels_last(s.padded, floats(dx), plan.padded, stream);
    check_launch(ctx);
  }
}

// dkernel from x and dy: ctx's inputs 0 (x) and 1 (dy) into its output 0.
template <typename Geometry>
void run_backward_filter_pass(KernelContext& ctx, RunContext& run, const Geometry& g) {
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  Tensor& dk = ctx.output(0);
  ConvPlan& plan = conv_plan(ctx, run, ConvPass::backward_filter, x, dk.shape(), dy.shape(), g);
  cudnnHandle_t handle = run.cudnn().get();
  const ConvScratch s = carve(run, plan);
  const float* input = floats(x);
  if (plan.explicit_padding) {
    launch_pad_channels_last(floats(x), s.padded, plan.padded, stream);
    check_launch(ctx);
    input = s.padded;
  }
  // The gradient in cuDNN's filter layout (s.filter), then transposed into Keras's.
  run_plan(
      ctx, plan, "backward-filter", "cudnnConvolutionBackwardFilter",
      [&](const Candidate& c) {
        return cudnnConvolutionBackwardFilter(handle, &kOne, plan.x.get(), input, plan.y.get(), floats(dy),
                                              plan.conv.get(), static_cast<cudnnConvolutionBwdFilterAlgo_t>(c.algo),
                                              s.workspace, c.bytes, &kZero, plan.w.get(), s.filter);
      },
      [&] { return geometry(g); });
  launch_transpose(s.filter, floats(dk), g.o, g.window(), stream);
  check_launch(ctx);
}

}  // namespace strata::cuda
