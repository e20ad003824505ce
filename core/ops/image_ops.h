// Image ops of the augmentation layers: a projective transform of each image of a batch
// (keras.ops.image.affine_transform on the TensorFlow backend, TensorFlow's
// ImageProjectiveTransformV3; the per-pixel rule is core/affine_sample.h), and contrast
// limited adaptive histogram equalization (Keras's CLAHE layer; the rule is
// core/clahe_rule.h).
#pragma once

#include <cstdint>
#include <string>

#include "core/affine_sample.h"
#include "core/clahe_rule.h"
#include "core/graph.h"

namespace strata::ops {

// What image_affine_transform samples with (Keras's argument names and values).
struct AffineTransformOptions {
  std::string interpolation = "bilinear";  // "bilinear" or "nearest"
  std::string fill_mode = "constant";      // "reflect", "wrap", "constant" or "nearest"
  float fill_value = 0.f;
  // The output's height and width; 0 keeps the input's (Keras's affine_transform always
  // does; RandomCrop's training crop asks for its window).
  std::int64_t out_height = 0, out_width = 0;
};

// images (batch, height, width, channels) float32, transforms (batch or 1, 8) float32:
// row b (or the single row) [a0, a1, a2, b0, b1, b2, c0, c1] maps output pixel (x, y) of
// image b to the input point ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k),
// k = c0 x + c1 y + 1. Throws ValueError for an interpolation or fill mode Keras does
// not have, ShapeError for ranks or sizes that do not fit.
//
// Gradient: none to the transforms (Keras draws them; they depend on no weight). To the
// images it is refused (NotImplementedError, when a gradient is asked through the op):
// TensorFlow's registered gradient is the inverse transform's resampling, not the
// transform's adjoint, and JAX's is the adjoint; neither is written here. Augmentation
// layers sit on a model's inputs, where no gradient is asked.
Output image_affine_transform(Output images, Output transforms, const AffineTransformOptions& options = {});

// What image_affine_transform's kernels (the CPU's, the CUDA one) read from its node and
// its inputs' shapes: the images' geometry and the sampling rule. Throws ShapeError
// naming the node when there are neither one transform nor one per image of the batch.
AffineImage affine_image_of(const Node& node, const Shape& images, const Shape& transforms);

// CLAHE's per-tile tables: images (batch, height, width, channels) float32 in [0, 255]
// (values outside count in the end bins) -> (batch, grid_h, grid_w, channels, 256), each
// tile's clipped, equalized cumulative histogram (core/clahe_rule.h). The tiles are
// ceil(height / grid_h) x ceil(width / grid_w) pixels of the image padded symmetrically;
// padding of more than the image's own size (TensorFlow's symmetric MirrorPad refuses it,
// so Keras does) is a ShapeError naming the sizes, as are grids below 1. Not
// differentiable: Keras reads the pixels through an integer cast.
Output clahe_tables(Output images, std::int64_t grid_h, std::int64_t grid_w, double clip_limit);

// Each pixel of `images` (batch, height, width, channels) replaced by the bilinear blend of
// the four surrounding tiles' tables (clahe_tables' output) at its bin. Not differentiable.
Output clahe_interpolate(Output images, Output tables);

// What the CLAHE kernels (the CPU's, the CUDA ones) read from the images' shape and
// clahe_tables' node.
ClaheGeometry clahe_geometry(const Shape& images, std::int64_t grid_h, std::int64_t grid_w, double clip_limit);
// clahe_interpolate's: the tables' grid; ShapeError unless the tables hold the images'
// batch and channels.
ClaheGeometry clahe_blend_geometry(const Shape& images, const Shape& tables);

}  // namespace strata::ops
