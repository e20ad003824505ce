// Host side of the sparse-label CUDA kernels: the class count and the labels' type, then
// one launch (core/cuda/pick.cu).
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/pick_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/pick_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

// pick(x, labels): x's last dim is the classes, one label per row.
void pick(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  launch_pick(floats(x), labels.device_data(),
              element_type(labels.dtype(), ctx.node.name), floats(ctx.output(0)),
              labels.size(), x.shape().dims().back(), stream);
  check_launch(ctx);
}

// unpick(g, labels, like): the output has like's shape, its last dim the classes.
void unpick(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& g = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  Tensor& out = ctx.output(0);
  launch_unpick(floats(g), labels.device_data(),
                element_type(labels.dtype(), ctx.node.name), floats(out), labels.size(),
                out.shape().dims().back(), stream);
  check_launch(ctx);
}

void register_pick_kernels(OpRegistry& r) {
  add_kernel(r, "pick", pick);
  add_kernel(r, "unpick", unpick);
}

}  // namespace strata::cuda
