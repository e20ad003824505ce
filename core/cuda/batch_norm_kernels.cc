// Host side of the batch normalization CUDA kernels: the layout around the node's axis,
// then the launches (core/cuda/batch_norm.cu). Outside training the statistics are the
// moving ones, copied into the outputs the CPU kernel fills the same way.
#include "core/cuda/batch_norm_kernels.h"

#include <cuda_runtime.h>

#include "core/cuda/batch_norm_launch.h"
#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

BatchNormShape shape_of(const KernelContext& ctx, const Shape& x) {
  const int axis = static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis"));
  BatchNormShape s;
  for (int d = 0; d < axis; ++d) s.outer *= x[d];
  s.channels = x[axis];
  for (int d = axis + 1; d < x.rank(); ++d) s.inner *= x[d];
  return s;
}

float epsilon_of(const KernelContext& ctx) { return static_cast<float>(ctx.node.attrs.get<double>("epsilon")); }

}  // namespace

void batch_normalization(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(0);
  const BatchNormShape s = shape_of(ctx, x.shape());
  Tensor& mean = ctx.output(1);
  Tensor& variance = ctx.output(2);
  if (ctx.training) {
    launch_batch_norm_statistics(floats(x), floats(mean), floats(variance), s, stream);
    check_launch(ctx);
  } else if (mean.nbytes() > 0) {
    check(cudaMemcpyAsync(mean.device_data(), ctx.input(3).device_data(), mean.nbytes(), cudaMemcpyDeviceToDevice,
                          stream),
          ctx, "cudaMemcpyAsync");
    check(cudaMemcpyAsync(variance.device_data(), ctx.input(4).device_data(), variance.nbytes(),
                          cudaMemcpyDeviceToDevice, stream),
          ctx, "cudaMemcpyAsync");
  }
  launch_batch_norm_apply(floats(x), floats(mean), floats(variance), floats(ctx.input(1)), floats(ctx.input(2)),
                          epsilon_of(ctx), floats(ctx.output(0)), s, stream);
  check_launch(ctx);
}

void batch_normalization_grad(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& x = ctx.input(1);
  const BatchNormShape s = shape_of(ctx, x.shape());
  launch_batch_norm_gradient(floats(ctx.input(0)), floats(x), floats(ctx.input(2)), floats(ctx.input(3)),
                             floats(ctx.input(4)), floats(ctx.input(5)), floats(ctx.input(6)), epsilon_of(ctx),
                             ctx.training, floats(ctx.output(0)), floats(ctx.output(1)), floats(ctx.output(2)), s,
                             stream);
  check_launch(ctx);
}

void register_batch_norm_kernels(OpRegistry& r) {
  add_kernel(r, "batch_normalization", batch_normalization);
  add_kernel(r, "batch_normalization_grad", batch_normalization_grad);
}

}  // namespace strata::cuda
