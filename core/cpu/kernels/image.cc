// The CPU kernels of the image ops (core/ops/image_ops.h): image_affine_transform, each
// output pixel sampled by core/affine_sample.h (TensorFlow's rule), rows of the batch's
// images split over the worker pool; clahe_tables (a tile's table per task) and
// clahe_interpolate (rows over the pool) by core/clahe_rule.h.
#include <algorithm>
#include <cstdint>

#include "core/affine_sample.h"
#include "core/clahe_rule.h"
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

void clahe_tables_kernel(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  Tensor& out = ctx.output(0);
  const ClaheGeometry g =
      ops::clahe_geometry(images.shape(), ctx.node.attrs.get<std::int64_t>("grid_h"),
                          ctx.node.attrs.get<std::int64_t>("grid_w"), ctx.node.attrs.get<double>("clip_limit"));
  const float* pi = images.data<float>();
  float* po = out.data<float>();
  const std::int64_t image_size = g.height * g.width * g.channels;
  const std::int64_t tables = images.shape()[0] * g.grid_h * g.grid_w * g.channels;
  cpu::parallel_for(tables, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t t = begin; t < end; ++t) {
      const std::int64_t c = t % g.channels, tx = (t / g.channels) % g.grid_w;
      const std::int64_t ty = (t / (g.channels * g.grid_w)) % g.grid_h, b = t / (g.channels * g.grid_w * g.grid_h);
      clahe_tile_table(pi + b * image_size, g, ty, tx, c, po + t * kClaheBins);
    }
  }, cpu::threshold_for(std::max<std::int64_t>(1, g.tile_h * g.tile_w)));
}

void clahe_interpolate_kernel(KernelContext& ctx) {
  const Tensor& images = ctx.input(0);
  const Tensor& tables = ctx.input(1);
  Tensor& out = ctx.output(0);
  const ClaheGeometry g = ops::clahe_blend_geometry(images.shape(), tables.shape());
  const std::int64_t batch = images.shape()[0];
  const float* pi = images.data<float>();
  const float* pt = tables.data<float>();
  float* po = out.data<float>();
  const std::int64_t image_size = g.height * g.width * g.channels;
  const std::int64_t table_size = g.grid_h * g.grid_w * g.channels * kClaheBins;
  cpu::parallel_for(batch * g.height, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t row = begin; row < end; ++row) {
      const std::int64_t b = row / g.height, y = row % g.height;
      float* o = po + row * g.width * g.channels;
      for (std::int64_t x = 0; x < g.width; ++x) {
        for (std::int64_t c = 0; c < g.channels; ++c) {
          o[x * g.channels + c] = clahe_pixel(pi + b * image_size, pt + b * table_size, g, y, x, c);
        }
      }
    }
  }, cpu::threshold_for(std::max<std::int64_t>(1, g.width * g.channels)));
}

}  // namespace

void register_image_kernels(OpRegistry& r) {
  r.add_kernel("image_affine_transform", DeviceType::cpu, {.run = image_affine_transform_kernel});
  r.add_kernel("clahe_tables", DeviceType::cpu, {.run = clahe_tables_kernel});
  r.add_kernel("clahe_interpolate", DeviceType::cpu, {.run = clahe_interpolate_kernel});
}

}  // namespace strata::cpu
