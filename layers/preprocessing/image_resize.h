// Image resizing as TF's resize (half-pixel centers but for area, whose op has none; with
// antialias, its ScaleAndTranslate) does it, for the Resizing, CenterCrop and UpSampling2D layers: each output row
// (column) is a fixed weighted sum of input rows (columns), so resizing is two matrix
// products with interpolation matrices (core/resize_weights.h's weights) made once from
// the sizes, or, for a None height or width, made when the program runs from the sizes it
// is given (ops::resize_weights). Gradients come from the products.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/variable.h"

namespace strata::layers {

// The part of an axis that is resized: [start, start + size).
struct AxisWindow {
  std::int64_t start = 0;
  std::int64_t size = 0;
};

// Throws ValueError, naming `layer` and the value, unless `interpolation` is one of Keras's
// resize interpolations: bilinear, nearest, bicubic, area, lanczos3, lanczos5.
void check_resize_interpolation(const std::string& layer, const std::string& interpolation);

// Row-major (out_size, in_size) weights mapping `window` of an axis of length in_size to
// out_size positions. interpolation: one of check_resize_interpolation's; antialias as
// TF's resize takes it (a shrink's kernel widened; nearest and area ignore it).
std::vector<float> interpolation_matrix(std::int64_t in_size, AxisWindow window, std::int64_t out_size,
                                        const std::string& interpolation, bool antialias = false);

// Keras's crop_to_aspect_ratio / smart_resize window: the largest centered region of an
// (in_h, in_w) image with the aspect ratio out_h : out_w.
std::pair<AxisWindow, AxisWindow> aspect_ratio_crop(std::int64_t in_h, std::int64_t in_w,
                                                    std::int64_t out_h, std::int64_t out_w);

// The constant matrices of one resize, kept as non-trainable variables (not weights:
// they are not saved and not data baked into the graph).
struct ResizeMatrices {
  Variable rows;  // (in_h, out_h): transposed, for x (..., in_h) · rows
  Variable cols;  // (in_w, out_w)
};
ResizeMatrices resize_matrices(const std::string& layer, std::int64_t in_h, std::int64_t in_w,
                               AxisWindow rows, AxisWindow cols, std::int64_t out_h,
                               std::int64_t out_w, const std::string& interpolation, bool antialias = false);

// x (batch, in_h, in_w, channels) -> (batch, out_h, out_w, channels).
Output resize_images(Graph& graph, Output x, const ResizeMatrices& m);

// A resize whose matrices are made when the program runs, from the sizes x has then
// (ops::resize_weights): for images whose height or width is None when the model is
// defined. Per axis, the output size, or (when it is 0) the input's times the factor.
struct RunTimeResize {
  std::int64_t height = 0, width = 0;
  std::int64_t height_factor = 0, width_factor = 0;
  bool crop_to_aspect_ratio = false;  // Keras's: resize the centered window of the output's ratio
  // Keras's pad_to_aspect_ratio: the image padded with fill_value to the output's ratio, then
  // resized (as the matrices over the padded axes applied to x − fill_value, plus it).
  bool pad_to_aspect_ratio = false;
  double fill_value = 0.0;
  std::string interpolation = "bilinear";
  bool antialias = false;
};
Output resize_images_at_run(Output x, const RunTimeResize& resize);

}  // namespace strata::layers
