// Host side of the reduction CUDA kernels: the CPU's axes rules (core/ops/shape_util.h),
// then one launch (core/cuda/reduce.cu).
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

void reduce(KernelContext& ctx, ReduceKind kind, bool mean) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  const Shape& s = x.shape();
  if (s.rank() > kMaxLaunchRank) {
    throw ShapeError(ctx.node.op + " on CUDA: input " + s.to_string() + " has rank above " +
                     std::to_string(kMaxLaunchRank));
  }
  const ops::Axes axes =
      ops::reduction_axes(ctx.node.op, ctx.node.attrs.get<std::vector<std::int64_t>>("axes"), x.rank());
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
  launch_reduce(kind, static_cast<const float*>(x.device_data()), static_cast<float*>(out.device_data()), out.size(),
                reduced_count, index, scale, stream);
  check_launch(ctx);
}

}  // namespace

void reduce_sum(KernelContext& ctx) { reduce(ctx, ReduceKind::sum, false); }
void reduce_mean(KernelContext& ctx) { reduce(ctx, ReduceKind::sum, true); }
void reduce_max(KernelContext& ctx) { reduce(ctx, ReduceKind::max, false); }

}  // namespace strata::cuda
