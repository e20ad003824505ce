// Host side of the image_affine_transform CUDA kernel: the geometry and sampling rule from
// the node (ops::affine_image_of, as the CPU kernel reads them), then one launch
// (core/cuda/affine_transform.cu).
#include "core/cuda/affine_transform_kernels.h"

#include "core/cuda/affine_transform_launch.h"
#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/image_ops.h"

namespace strata::cuda {

void image_affine_transform(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& images = ctx.input(0);
  const Tensor& transforms = ctx.input(1);
  Tensor& out = ctx.output(0);
  const AffineImage g = ops::affine_image_of(ctx.node, images.shape(), transforms.shape());
  const std::int64_t batch = out.shape()[0];
  if (out.size() == 0) return;
  launch_affine_transform(floats(images), floats(transforms), transforms.shape()[0] == 1, floats(out), batch,
                          out.shape()[1], out.shape()[2], g, run.stream().get());
  check_launch(ctx);
}

void register_affine_transform_kernels(OpRegistry& r) {
  add_kernel(r, "image_affine_transform", image_affine_transform);
}

}  // namespace strata::cuda
