// The CPU kernel of the image ops (core/ops/image_ops.h): image_affine_transform, each
// output pixel sampled by core/affine_sample.h (TensorFlow's rule), rows of the batch's
// images split over the worker pool.
#include <algorithm>
#include <cstdint>

#include "core/affine_sample.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"
#include "core/ops/image_ops.h"

namespace strata::cpu {

namespace {

void image_affine_transform_kernel(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  const Tensor& transforms = ctx.input(1);
  Tensor& out = ctx.output(0);
  const AffineImage g = ops::affine_image_of(ctx.node, images.shape(), transforms.shape());
  const std::int64_t batch = out.shape()[0], out_h = out.shape()[1], out_w = out.shape()[2];
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
