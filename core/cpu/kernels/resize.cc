// The CPU kernel of the resize ops (core/ops/resize_ops.h): resize_weights, each output
// position's weights written by core/resize_weights.h (TensorFlow's arithmetic).
#include <algorithm>
#include <cstdint>

#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"
#include "core/ops/resize_ops.h"
#include "core/resize_weights.h"

namespace strata::cpu {

namespace {

void resize_weights_kernel(KernelContext& ctx) {
  const ops::ResizeWeightsPlan p = ops::resize_weights_plan_of(ctx.node, ctx.input(0).shape());
  Tensor& out = ctx.output(0);  // (in, out): column o holds output o's weights
  float* m = out.data<float>();
  std::fill(m, m + out.size(), 0.0f);
  for (std::int64_t o = 0; o < p.out_size; ++o) {
    resize_weights_row({m + o, p.out_size, p.in_size}, o, p.start, p.size, p.out_size, p.kind);
  }
}

}  // namespace

void register_resize_kernels(OpRegistry& r) {
  r.add_kernel("resize_weights", DeviceType::cpu, {.run = resize_weights_kernel});
}

}  // namespace strata::cpu
