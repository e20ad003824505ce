// The CPU kernel of the image ops (core/ops/image_ops.h): image_affine_transform, each
// output pixel sampled by core/affine_sample.h (TensorFlow's rule), rows of the batch's
// images split over the worker pool.
#include <algorithm>
#include <cstdint>
#include <string>

#include "core/affine_sample.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

void image_affine_transform_kernel(KernelContext& ctx) {
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
  const std::int64_t batch = out.shape()[0], out_h = out.shape()[1], out_w = out.shape()[2];
  if (transforms.shape()[0] != 1 && transforms.shape()[0] != batch) {
    throw ShapeError("image_affine_transform ('" + ctx.node.name + "'): " + std::to_string(transforms.shape()[0]) +
                     " transforms for a batch of " + std::to_string(batch));
  }
  const float* pi = images.data<float>();
  const float* pt = transforms.data<float>();
  float* po = out.data<float>();
  const std::int64_t per_transform = transforms.shape()[0] == 1 ? 0 : 8;
  const std::int64_t image_size = g.height * g.width * g.channels;
  cpu::parallel_for(batch * out_h, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      const std::int64_t b = row / out_h, y = row % out_h;
      const float* image = pi + b * image_size;
      const float* t = pt + b * per_transform;
      float* o = po + row * out_w * g.channels;
      for (std::int64_t x = 0; x < out_w; ++x) {
        for (std::int64_t c = 0; c < g.channels; ++c) o[x * g.channels + c] = affine_sample(image, g, t, y, x, c);
      }
    }
  }, cpu::threshold_for(std::max<std::int64_t>(1, out_w * g.channels)));
}

}  // namespace

void register_image_kernels(OpRegistry& r) {
  r.add_kernel("image_affine_transform", DeviceType::cpu, {.run = image_affine_transform_kernel});
}

}  // namespace strata::cpu
