// Host side of the reduction CUDA kernels: the CPU's axes rules (core/ops/shape_util.h),
// then one launch (core/cuda/reduce.cu).
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/reduce_kernels.h"

#include <algorithm>
#include <string>

#include "core/cuda/check.h"
#include "core/cuda/reduce_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cuda {

namespace {

void check_rank(const KernelContext& ctx, const Shape& s) {
  if (s.rank() > kMaxLaunchRank) {
    throw ShapeError(ctx.node.op + " on CUDA: " + s.to_string() + " has rank above " + std::to_string(kMaxLaunchRank));
  }
}

// out = x reduced over `axes` (of x's dims), times scale: out's elements are x's kept dims
// in row-major order, whatever 1s out's shape has besides.
void reduce_over(KernelContext& ctx, const Tensor& x, const ops::Axes& axes, ReduceKind kind, bool mean, Tensor& out) {
  CUstream_st* stream = run_context(ctx).stream().get();
  if (out.size() == 0) return;
  const Shape& s = x.shape();
  check_rank(ctx, s);
  ReduceIndex index;
  std::int64_t stride = 1, reduced_count = 1;
  std::int64_t strides[kMaxLaunchRank] = {};
  for (int d = s.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= s.dims()[static_cast<std::size_t>(d)];
  }
  for (int d = 0; d < s.rank(); ++d) {
    const std::int64_t dim = s.dims()[static_cast<std::size_t>(d)];
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) {
      index.reduced_dims[index.reduced_rank] = dim;
      index.reduced_strides[index.reduced_rank++] = strides[d];
      reduced_count *= dim;
    } else {
      index.kept_dims[index.kept_rank] = dim;
      index.kept_strides[index.kept_rank++] = strides[d];
    }
  }
  // As the CPU: a mean divides by the count, a mean over nothing stays 0.
  const float scale = mean && reduced_count > 0 ? 1.0f / static_cast<float>(reduced_count) : 1.0f;
  launch_reduce(kind, floats(x), floats(out), out.size(),
                reduced_count, index, scale, stream);
  check_launch(ctx);
}

void reduce(KernelContext& ctx, ReduceKind kind, bool mean) {
  const Tensor& x = ctx.input(0);
  const ops::Axes axes =
      ops::reduction_axes(ctx.node.op, ctx.node.attrs.get<std::vector<std::int64_t>>("axes"), x.rank());
  reduce_over(ctx, x, axes, kind, mean, ctx.output(0));
}

}  // namespace

void reduce_sum(KernelContext& ctx) { reduce(ctx, ReduceKind::sum, false); }
void reduce_mean(KernelContext& ctx) { reduce(ctx, ReduceKind::sum, true); }
void reduce_max(KernelContext& ctx) { reduce(ctx, ReduceKind::max, false); }

void sum_to_like(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  reduce_over(ctx, x, ops::broadcast_axes(out.shape(), x.shape()), ReduceKind::sum, false, out);
}

void expand_to(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& g = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  check_rank(ctx, out.shape());
  const ops::Axes axes =
      ops::reduction_axes("expand_to", ctx.node.attrs.get<std::vector<std::int64_t>>("axes"), out.rank());
  // As the CPU: a mean's gradient is spread over the count, one over nothing is 0.
  float scale = 1.0f;
  if (ctx.node.attrs.get<bool>("mean")) {
    std::int64_t count = 1;
    for (int a : axes) count *= out.shape().dims()[static_cast<std::size_t>(a)];
    scale = count > 0 ? 1.0f / static_cast<float>(count) : 0.0f;
  }
  const ops::Strides strides = ops::reduced_strides(out.shape(), axes);
  ExpandIndex index;
  index.rank = out.rank();
  for (int d = 0; d < out.rank(); ++d) {
    index.dims[d] = out.shape().dims()[static_cast<std::size_t>(d)];
    index.in_strides[d] = strides[static_cast<std::size_t>(d)];
  }
  launch_expand(floats(g), floats(out), out.size(), index,
                scale, stream);
  check_launch(ctx);
}

void argmax(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  const Shape& s = x.shape();
  const int axis = s.normalize_axis(static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")));
  const std::int64_t inner = s.product(axis + 1, s.rank());
  launch_argmax(floats(x), static_cast<std::int64_t*>(out.device_data()),
                s.product(0, axis) * inner, s.dims()[static_cast<std::size_t>(axis)], inner, stream);
  check_launch(ctx);
}

void register_reduce_kernels(OpRegistry& r) {
  add_kernel(r, "reduce_sum", reduce_sum);
  add_kernel(r, "reduce_mean", reduce_mean);
  add_kernel(r, "reduce_max", reduce_max);
  add_kernel(r, "expand_to", expand_to);
  add_kernel(r, "sum_to_like", sum_to_like);
  add_kernel(r, "argmax", argmax);
}

}  // namespace strata::cuda
