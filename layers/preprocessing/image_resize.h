// Image resizing as TF's resize (antialias off; half-pixel centers but for area, whose op
// has none) does it, for the Resizing, CenterCrop and UpSampling2D layers: each output row
// (column) is a fixed weighted sum of input rows (columns), so resizing is two matrix
// products with interpolation matrices made once from the sizes. Gradients come from the
// products.
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
// out_size positions. interpolation: one of check_resize_interpolation's.
std::vector<float> interpolation_matrix(std::int64_t in_size, AxisWindow window,
                                        std::int64_t out_size, const std::string& interpolation);

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
                               std::int64_t out_w, const std::string& interpolation);

// x (batch, in_h, in_w, channels) -> (batch, out_h, out_w, channels).
Output resize_images(Graph& graph, Output x, const ResizeMatrices& m);

}  // namespace strata::layers
