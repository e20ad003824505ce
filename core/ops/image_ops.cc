// The image ops (core/ops/image_ops.h): image_affine_transform, clahe_tables and
// clahe_interpolate. The devices register their
// kernels (the CPU's in cpu/kernels/image.cc, CUDA's in cuda/affine_transform_kernels.cc
// and cuda/clahe_kernels.cc).
#include "core/ops/image_ops.h"

#include <string>
#include <vector>

#include "core/affine_sample.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::int64_t fill_number(const std::string& mode) {
  if (mode == "reflect") return static_cast<std::int64_t>(AffineFill::reflect);
  if (mode == "wrap") return static_cast<std::int64_t>(AffineFill::wrap);
  if (mode == "constant") return static_cast<std::int64_t>(AffineFill::constant);
  if (mode == "nearest") return static_cast<std::int64_t>(AffineFill::nearest);
  throw ValueError("image_affine_transform: fill_mode must be one of 'reflect', 'wrap', 'constant', 'nearest', got '" +
                   mode + "'");
}

// The tile of one axis, after checking that symmetric padding can reach it.
std::int64_t clahe_tile(const std::string& op, const char* axis, std::int64_t size, std::int64_t grid) {
  if (grid < 1) throw ShapeError(op + ": the tile grid's " + axis + " must be at least 1, got " + std::to_string(grid));
  const std::int64_t tile = (size + grid - 1) / grid;
  if (tile * grid - size > size) {
    throw ShapeError(op + ": images of " + axis + " " + std::to_string(size) + " cannot be padded symmetrically to " +
                     std::to_string(grid) + " tiles of " + std::to_string(tile) +
                     " (the padding would exceed the image, which TensorFlow's symmetric padding refuses)");
  }
  return tile;
}

}  // namespace

void register_image_ops(OpRegistry& r) {
  r.add({.name = "image_affine_transform",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const Shape& images = ctx.inputs[0].shape;
           const Shape& transforms = ctx.inputs[1].shape;
           if (images.rank() != 4) {
             throw ShapeError(ctx.op + ": images must be (batch, height, width, channels), got " + images.to_string());
           }
           if (transforms.rank() != 2 || transforms.dims()[1] != 8) {
             throw ShapeError(ctx.op + ": transforms must be (batch, 8) or (1, 8), got " + transforms.to_string());
           }
           std::vector<std::int64_t> dims = images.dims();
           if (const auto h = ctx.attrs.get<std::int64_t>("out_height"); h > 0) dims[1] = h;
           if (const auto w = ctx.attrs.get<std::int64_t>("out_width"); w > 0) dims[2] = w;
           return std::vector<TensorSpec>{{Shape(dims), DType::float32}};
         },
         .gradient = [](const Node& node, const std::vector<Output>&) -> std::vector<Output> {
           throw NotImplementedError(
               "image_affine_transform ('" + node.name +
               "'): no gradient to the images. Keras's augmentation layers (RandomRotation, RandomZoom, "
               "RandomTranslation, RandomShear, RandomCrop) are meant for a model's inputs; put them before any "
               "layer with weights, or apply them to the data instead");
         }});
  r.add({.name = "clahe_tables",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& images = ctx.inputs[0].shape;
           if (images.rank() != 4) {
             throw ShapeError(ctx.op + ": images must be (batch, height, width, channels), got " + images.to_string());
           }
           const auto gh = ctx.attrs.get<std::int64_t>("grid_h"), gw = ctx.attrs.get<std::int64_t>("grid_w");
           if (images.dims()[1] >= 0) clahe_tile(ctx.op, "height", images.dims()[1], gh);
           if (images.dims()[2] >= 0) clahe_tile(ctx.op, "width", images.dims()[2], gw);
           return std::vector<TensorSpec>{
               {Shape({images.dims()[0], gh, gw, images.dims()[3], kClaheBins}), DType::float32}};
         },
         .differentiable = false});
  r.add({.name = "clahe_interpolate",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const Shape& images = ctx.inputs[0].shape;
           const Shape& tables = ctx.inputs[1].shape;
           if (images.rank() != 4 || tables.rank() != 5 || tables.dims()[4] != kClaheBins) {
             throw ShapeError(ctx.op + ": takes images (batch, height, width, channels) and tables (batch, grid_h, "
                              "grid_w, channels, 256), got " + images.to_string() + " and " + tables.to_string());
           }
           if (images.dims()[3] != tables.dims()[3]) {
             throw ShapeError(ctx.op + ": tables " + tables.to_string() + " are not for the channels of images " +
                              images.to_string());
           }
           return std::vector<TensorSpec>{{images, DType::float32}};
         },
         .differentiable = false});
}

Output clahe_tables(Output images, std::int64_t grid_h, std::int64_t grid_w, double clip_limit) {
  return images.graph->add("clahe_tables", {images},
                           Attrs{{"grid_h", grid_h}, {"grid_w", grid_w}, {"clip_limit", clip_limit}});
}

Output clahe_interpolate(Output images, Output tables) {
  return images.graph->add("clahe_interpolate", {images, tables});
}

ClaheGeometry clahe_geometry(const Shape& images, std::int64_t grid_h, std::int64_t grid_w, double clip_limit) {
  ClaheGeometry g;
  g.height = images[1];
  g.width = images[2];
  g.channels = images[3];
  g.grid_h = grid_h;
  g.grid_w = grid_w;
  g.tile_h = clahe_tile("clahe_tables", "height", g.height, grid_h);
  g.tile_w = clahe_tile("clahe_tables", "width", g.width, grid_w);
  g.clip_limit = clip_limit;
  return g;
}

ClaheGeometry clahe_blend_geometry(const Shape& images, const Shape& tables) {
  if (tables[0] != images[0] || tables[3] != images[3]) {
    throw ShapeError("clahe_interpolate: tables " + tables.to_string() + " are not those of images " +
                     images.to_string() + " (batch and channels differ)");
  }
  return clahe_geometry(images, tables[1], tables[2], 0.0);
}

Output image_affine_transform(Output images, Output transforms, const AffineTransformOptions& options) {
  if (options.interpolation != "bilinear" && options.interpolation != "nearest") {
    throw ValueError("image_affine_transform: interpolation must be 'bilinear' or 'nearest', got '" +
                     options.interpolation + "'");
  }
  return images.graph->add("image_affine_transform", {images, transforms},
                           Attrs{{"bilinear", options.interpolation == "bilinear"},
                                 {"fill_mode", fill_number(options.fill_mode)},
                                 {"fill_value", static_cast<double>(options.fill_value)},
                                 {"out_height", options.out_height},
                                 {"out_width", options.out_width}});
}

AffineImage affine_image_of(const Node& node, const Shape& images, const Shape& transforms) {
  if (transforms[0] != 1 && transforms[0] != images[0]) {
    throw ShapeError("image_affine_transform ('" + node.name + "'): " + std::to_string(transforms[0]) +
                     " transforms for a batch of " + std::to_string(images[0]));
  }
  AffineImage g;
  g.height = images[1];
  g.width = images[2];
  g.channels = images[3];
  g.fill = static_cast<AffineFill>(node.attrs.get<std::int64_t>("fill_mode"));
  g.bilinear = node.attrs.get<bool>("bilinear");
  g.fill_value = static_cast<float>(node.attrs.get<double>("fill_value"));
  return g;
}

}  // namespace strata::ops
