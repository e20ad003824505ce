// Host side of the softmax and sparsemax CUDA kernels: the axis off the node, the tensor
// read as lanes along it, then one launch (core/cuda/softmax.cu, core/cuda/sparsemax.cu).
#include "core/cuda/kernel_registration.h"
#include "core/cuda/softmax_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/run_context.h"
#include "core/cuda/softmax_launch.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

// The lanes of `s` along the node's axis, as the CPU kernel walks them.
LaneShape lanes_of(const KernelContext& ctx, const Shape& s) {
  const int axis = s.normalize_axis(static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")));
  LaneShape lanes;
  lanes.n = s.dims()[static_cast<std::size_t>(axis)];
  lanes.inner = s.product(axis + 1, s.rank());
  lanes.lanes = s.product(0, axis) * lanes.inner;
  return lanes;
}

void softmax_or_log(KernelContext& ctx, bool log_space) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (y.size() == 0) return;
  launch_softmax(floats(x), floats(y), lanes_of(ctx, x.shape()), log_space, stream);
  check_launch(ctx);
}

}  // namespace

void softmax(KernelContext& ctx) { softmax_or_log(ctx, false); }
void log_softmax(KernelContext& ctx) { softmax_or_log(ctx, true); }

void softmax_grad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& g = ctx.input(0);
  const Tensor& y = ctx.input(1);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  launch_softmax_grad(floats(g), floats(y), floats(out), lanes_of(ctx, y.shape()), stream);
  check_launch(ctx);
}

void sparsemax(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  if (y.size() == 0) return;
  launch_sparsemax(floats(x), floats(y), lanes_of(ctx, x.shape()), stream);
  check_launch(ctx);
}

void sparsemax_grad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& g = ctx.input(0);
  const Tensor& x = ctx.input(1);
  Tensor& dx = ctx.output(0);
  if (dx.size() == 0) return;
  launch_sparsemax_grad(floats(g), floats(x), floats(dx), lanes_of(ctx, x.shape()), stream);
  check_launch(ctx);
}

void register_softmax_kernels(OpRegistry& r) {
  add_kernel(r, "softmax", softmax);
  add_kernel(r, "softmax_grad", softmax_grad);
  add_kernel(r, "sparsemax", sparsemax);
  add_kernel(r, "sparsemax_grad", sparsemax_grad);
  add_kernel(r, "log_softmax", log_softmax);
}

}  // namespace strata::cuda
