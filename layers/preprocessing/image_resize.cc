#include "layers/preprocessing/image_resize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/resize_ops.h"
#include "core/resize_weights.h"

namespace strata::layers {

void check_resize_interpolation(const std::string& layer, const std::string& interpolation) {
  ops::resize_kind_of(layer, interpolation);
}

std::vector<float> interpolation_matrix(std::int64_t in_size, AxisWindow window, std::int64_t out_size,
                                        const std::string& interpolation, bool antialias) {
  const ResizeKind kind = ops::resize_kind_of("interpolation_matrix", interpolation, antialias);
  std::vector<float> m(static_cast<std::size_t>(out_size * in_size), 0.0f);
  for (std::int64_t o = 0; o < out_size; ++o) {
    resize_weights_row({m.data() + o * in_size, 1, in_size}, o, window.start, window.size, out_size, kind);
  }
  return m;
}

std::pair<AxisWindow, AxisWindow> aspect_ratio_crop(std::int64_t in_h, std::int64_t in_w,
                                                    std::int64_t out_h, std::int64_t out_w) {
  const std::int64_t crop_h = std::max<std::int64_t>(
      std::min<std::int64_t>(in_h, static_cast<std::int64_t>(static_cast<double>(in_w) * out_h / out_w)), 1);
  const std::int64_t crop_w = std::max<std::int64_t>(
      std::min<std::int64_t>(in_w, static_cast<std::int64_t>(static_cast<double>(in_h) * out_w / out_h)), 1);
  return {{(in_h - crop_h) / 2, crop_h}, {(in_w - crop_w) / 2, crop_w}};
}

namespace {

Variable transposed_matrix(const std::string& path, std::int64_t in_size, AxisWindow window,
                           std::int64_t out_size, const std::string& interpolation, bool antialias) {
  const std::vector<float> m = interpolation_matrix(in_size, window, out_size, interpolation, antialias);
  std::vector<float> t(m.size());
  for (std::int64_t o = 0; o < out_size; ++o)
    for (std::int64_t i = 0; i < in_size; ++i) t[i * out_size + o] = m[o * in_size + i];
  return Variable(path, Tensor::from_vector(Shape{in_size, out_size}, t), /*trainable=*/false);
}

}  // namespace

ResizeMatrices resize_matrices(const std::string& layer, std::int64_t in_h, std::int64_t in_w,
                               AxisWindow rows, AxisWindow cols, std::int64_t out_h,
                               std::int64_t out_w, const std::string& interpolation, bool antialias) {
  check_resize_interpolation(layer, interpolation);
  // The matrices are (in, out) per axis: sizes from a damaged file must neither be empty
  // nor make a matrix no machine holds (nor overflow its element count).
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 28;
  for (const auto& [axis, in, out] : {std::tuple{"height", in_h, out_h}, std::tuple{"width", in_w, out_w}}) {
    if (in < 1 || out < 1) {
      throw ValueError(layer + ": cannot resize a " + axis + " of " + std::to_string(in) + " to " +
                       std::to_string(out) + " (both must be positive)");
    }
    if (out > kMaxElements / in) {
      throw ValueError(layer + ": resizing a " + axis + " of " + std::to_string(in) + " to " + std::to_string(out) +
                       " needs an interpolation matrix of more than 2^28 elements");
    }
  }
  return {transposed_matrix(layer + "/resize_rows", in_h, rows, out_h, interpolation, antialias),
          transposed_matrix(layer + "/resize_cols", in_w, cols, out_w, interpolation, antialias)};
}

namespace {

// (B, H, W, C) -> (B, W, C, H) · rows -> (B, W, C, h) -> (B, h, C, W) · cols
// -> (B, h, C, w) -> (B, h, w, C).
Output resize_by(Output x, Output rows, Output cols) {
  Output t = ops::matmul(ops::transpose(x, {0, 2, 3, 1}), rows);
  t = ops::matmul(ops::transpose(t, {0, 3, 2, 1}), cols);
  return ops::transpose(t, {0, 1, 3, 2});
}

}  // namespace

Output resize_images(Graph& graph, Output x, const ResizeMatrices& m) {
  return resize_by(x, graph.variable(m.rows), graph.variable(m.cols));
}

Output resize_images_at_run(Output x, const RunTimeResize& r) {
  const ResizeKind kind = ops::resize_kind_of("resize_images_at_run", r.interpolation, r.antialias);
  const bool aspect = r.crop_to_aspect_ratio || r.pad_to_aspect_ratio;
  const int other_rows = aspect ? 2 : -1, other_cols = aspect ? 1 : -1;
  const Output rows = ops::resize_weights(x, {.axis = 1, .kind = kind, .size = r.height, .scale = r.height_factor,
                                              .other_axis = other_rows, .other_size = r.width,
                                              .pad_to_aspect_ratio = r.pad_to_aspect_ratio});
  const Output cols = ops::resize_weights(x, {.axis = 2, .kind = kind, .size = r.width, .scale = r.width_factor,
                                              .other_axis = other_cols, .other_size = r.height,
                                              .pad_to_aspect_ratio = r.pad_to_aspect_ratio});
  if (!r.pad_to_aspect_ratio) return resize_by(x, rows, cols);
  const auto fill = static_cast<float>(r.fill_value);
  return ops::add(resize_by(ops::sub(x, fill), rows, cols), fill);
}

}  // namespace strata::layers
