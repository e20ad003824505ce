// Host side of the pooling CUDA kernels: the geometry off the node's attributes and the
// tensors' shapes, then one launch (core/cuda/pool.cu).
#include "core/cuda/kernel_registration.h"
#include "core/cuda/pool_kernels.h"

#include <cstdint>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/pool_launch.h"
#include "core/cuda/reduce_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/pool_ops.h"

namespace strata::cuda {

namespace {

// x the pooled input (n, h, w, c), y the pooled output (n, oh, ow, c). The window off the
// op's geometry, which works "same" pads (kSamePad) out of x's size.
PoolShape pool_shape(const KernelContext& ctx, const Shape& x, const Shape& y) {
  const ops::PoolGeom g = ops::pool_geometry(ctx.node.op, x, ctx.node.attrs);
  PoolShape s;
  s.n = x[0], s.h = x[1], s.w = x[2], s.c = x[3];
  s.oh = y[1], s.ow = y[2];
  s.kh = g.kh, s.kw = g.kw, s.sh = g.sh, s.sw = g.sw;
  s.pt = g.pt, s.pl = g.pl;
  return s;
}

}  // namespace

void max_pool2d(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  launch_max_pool(floats(x), floats(y), pool_shape(ctx, x.shape(), y.shape()), stream);
  check_launch(ctx);
}

void avg_pool2d(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& y = ctx.output(0);
  launch_avg_pool(floats(x), floats(y), pool_shape(ctx, x.shape(), y.shape()), stream);
  check_launch(ctx);
}

// (x, dy) -> dx.
void max_pool2d_grad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  launch_max_pool_grad(floats(x), floats(dy), floats(ctx.output(0)), pool_shape(ctx, x.shape(), dy.shape()), false,
                       stream);
  check_launch(ctx);
}

// (y, dy) -> (dz, db): y a relu's output, dz the gradient through the pool and the relu,
// db its sum over (N, H, W) (the reduction kernel: another order than the CPU's).
void max_pool2d_relu_grad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& y = ctx.input(0);
  const Tensor& dy = ctx.input(1);
  Tensor& dz = ctx.output(0);
  Tensor& db = ctx.output(1);
  const PoolShape s = pool_shape(ctx, y.shape(), dy.shape());
  launch_max_pool_grad(floats(y), floats(dy), floats(dz), s, true, stream);
  ReduceIndex index;
  index.kept_rank = 1;
  index.kept_dims[0] = s.c;
  index.kept_strides[0] = 1;
  index.reduced_rank = 1;
  index.reduced_dims[0] = s.n * s.h * s.w;
  index.reduced_strides[0] = s.c;
  launch_reduce(ReduceKind::sum, floats(dz), floats(db), s.c, s.n * s.h * s.w, index, 1.f, stream);
  check_launch(ctx);
}

// dy -> dx.
void avg_pool2d_grad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& dy = ctx.input(0);
  Tensor& dx = ctx.output(0);
  launch_avg_pool_grad(floats(dy), floats(dx), pool_shape(ctx, dx.shape(), dy.shape()), stream);
  check_launch(ctx);
}

void register_pool_kernels(OpRegistry& r) {
  add_kernel(r, "max_pool2d", max_pool2d);
  add_kernel(r, "max_pool2d_grad", max_pool2d_grad);
  add_kernel(r, "max_pool2d_relu_grad", max_pool2d_relu_grad);
  add_kernel(r, "avg_pool2d", avg_pool2d);
  add_kernel(r, "avg_pool2d_grad", avg_pool2d_grad);
}

}  // namespace strata::cuda
