// The CPU kernels of the shape ops (core/ops/shape_ops.cc): reshape, reshape_like,
// broadcast_like, sum_to_like.
#include "core/cpu/kernels/copy_input.h"
#include "core/cpu/kernels/reduce.h"
#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::cpu {

namespace {

void broadcast_like_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  broadcast_into(x, ops::broadcast_strides(x.shape(), out.shape()), out);
}

void sum_to_like_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  auto axes = ops::broadcast_axes(out.shape(), x.shape());
  reduce_into(x, axes, Reduction::sum, out);
}

}  // namespace

void register_shape_kernels(OpRegistry& r) {
  r.add_kernel("reshape", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("reshape_like", DeviceType::cpu, {.run = copy_input_kernel});
  r.add_kernel("broadcast_like", DeviceType::cpu, {.run = broadcast_like_kernel});
  r.add_kernel("sum_to_like", DeviceType::cpu, {.run = sum_to_like_kernel});
}

}  // namespace strata::cpu
