// The image ops (core/ops/image_ops.h): image_affine_transform. The devices register their
// kernels (the CPU's in cpu/kernels/image.cc, CUDA's in cuda/affine_transform_kernels.cc).
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
