// Host side of the indicator CUDA kernels: the shape (and the labels' type), then one
// launch (core/cuda/indicator.cu).
#include "core/cuda/indicator_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/indicator_launch.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

void one_hot(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& labels = ctx.input(0);
  launch_one_hot(labels.device_data(), element_type(labels.dtype(), ctx.node.name), floats(ctx.output(0)),
                 labels.size(), ctx.node.attrs.get<std::int64_t>("num_classes"), stream);
  check_launch(ctx);
}

void causal_mask(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  Tensor& out = ctx.output(0);
  launch_causal_mask(floats(out), out.shape()[0], out.shape()[1], stream);
  check_launch(ctx);
}

void register_indicator_kernels(OpRegistry& r) {
  add_kernel(r, "causal_mask", causal_mask);
  add_kernel(r, "one_hot", one_hot);
}

}  // namespace strata::cuda
