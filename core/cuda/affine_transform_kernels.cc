// Host side of the image_affine_transform CUDA kernel: the geometry and sampling rule from
// the node (as core/cpu/kernels/image.cc reads them), then one launch
// (core/cuda/affine_transform.cu).
#include "core/cuda/affine_transform_kernels.h"

#include <string>

#include "core/cuda/affine_transform_launch.h"
#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cuda {

void image_affine_transform(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& images = ctx.input(0);
  const Tensor& transforms = ctx.input(1);
  Tensor& out = ctx.output(0);
  const Attrs& a = ctx.node.attrs;
  AffineImage g;
  g.height = images.shape()[1];
  g.width = images.shape()[2];
  g.channels = images.shape()[3];
  g.fill = static_cast<AffineFill>(a.get<std::int64_t>("fill_mode"));
  g.bilinear = a.get<bool>("bilinear");
  g.fill_value = static_cast<float>(a.get<double>("fill_value"));
  const std::int64_t batch = out.shape()[0];
  if (transforms.shape()[0] != 1 && transforms.shape()[0] != batch) {
    throw ShapeError("image_affine_transform ('" + ctx.node.name + "'): " + std::to_string(transforms.shape()[0]) +
                     " transforms for a batch of " + std::to_string(batch));
  }
  if (out.size() == 0) return;
  launch_affine_transform(floats(images), floats(transforms), transforms.shape()[0] == 1, floats(out), batch,
                          out.shape()[1], out.shape()[2], g, run.stream().get());
  check_launch(ctx);
}

void register_affine_transform_kernels(OpRegistry& r) {
  add_kernel(r, "image_affine_transform", image_affine_transform);
}

}  // namespace strata::cuda
