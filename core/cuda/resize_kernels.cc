// Host side of the resize_weights CUDA kernel: the axis's sizes and window from the node
// (ops::resize_weights_plan_of, as the CPU kernel reads them), then one launch
// (core/cuda/resize.cu).
#include "core/cuda/resize_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/resize_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/resize_ops.h"

namespace strata::cuda {

void resize_weights(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const ops::ResizeWeightsPlan p = ops::resize_weights_plan_of(ctx.node, ctx.input(0).shape());
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  launch_resize_weights(floats(out), p.in_size, p.out_size, p.start, p.size, p.kind, run.stream().get());
  check_launch(ctx);
}

void register_resize_kernels(OpRegistry& r) { add_kernel(r, "resize_weights", resize_weights); }

}  // namespace strata::cuda
