#include "layers/preprocessing/image_resize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

namespace {

// TF's bicubic weights (ResizeBicubic with half-pixel centers): Keys' cubic with
// A = -0.5, read from a 1024-entry table at the rounded fraction, as TF reads it.
constexpr int kCubicTable = 1024;
double keys_cubic_near(double x) { return ((-0.5 + 2) * x - (-0.5 + 3)) * x * x + 1; }  // |d| <= 1
double keys_cubic_far(double x) {  // 1 < |d| < 2
  const double a = -0.5;
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

void bicubic_row(float* row, double src, std::int64_t start, std::int64_t size) {
  const double floor_src = std::floor(src);
  const auto in = static_cast<std::int64_t>(floor_src);
  const auto offset = static_cast<int>(std::lrint((src - floor_src) * kCubicTable));
  const double t = static_cast<double>(offset) / kCubicTable, u = static_cast<double>(kCubicTable - offset) / kCubicTable;
  const double w[4] = {keys_cubic_far(t + 1), keys_cubic_near(t), keys_cubic_near(u), keys_cubic_far(u + 1)};
  // Taps outside the image get no weight; the rest are renormalized.
  double kept[4], total = 0;
  for (int k = 0; k < 4; ++k) {
    const std::int64_t i = in - 1 + k;
    kept[k] = i >= 0 && i < size ? w[k] : 0.0;
    total += kept[k];
  }
  for (int k = 0; k < 4; ++k) {
    if (kept[k] == 0.0) continue;
    row[start + in - 1 + k] += static_cast<float>(std::fabs(total) >= 1000 * 1.17549435e-38 ? kept[k] / total : kept[k]);
  }
}

// TF's ResizeArea (the op Keras's "area" runs; no half-pixel offset): output o averages
// the input cells under [o·s, (o+1)·s), s = in/out, each cell by the part of it covered,
// in float as TF computes. The op scales by 1/(s_rows·s_cols) once; here each axis takes
// its own 1/s.
void area_row(float* row, std::int64_t o, std::int64_t start, std::int64_t size, std::int64_t out_size) {
  const float s = static_cast<float>(size) / static_cast<float>(out_size);
  const float from = static_cast<float>(o) * s, to = static_cast<float>(o + 1) * s;
  const auto first = static_cast<std::int64_t>(std::floor(from)), end = static_cast<std::int64_t>(std::ceil(to));
  for (std::int64_t i = first; i < end; ++i) {
    const auto cell = static_cast<float>(i);
    const float covered = cell < from ? (cell + 1 > to ? s : cell + 1 - from) : (cell + 1 > to ? to - cell : 1.0f);
    // Rounding can reach one cell past the image; TF reads the edge cell again.
    row[start + std::clamp<std::int64_t>(i, 0, size - 1)] += covered / s;
  }
}

// TF's ScaleAndTranslate with a Lanczos kernel of radius a (Keras's "lanczos3" and
// "lanczos5"), translation 0, antialias off so the kernel keeps its width when shrinking:
// output o samples at (o + 1/2)/scale, from the cells within a of it, its weights
// normalized to sum 1; in float as TF computes.
float lanczos(float a, float x) {
  constexpr float kPi = 3.14159265359f;
  x = std::fabs(x);
  if (x > a) return 0.0f;
  if (x <= 1e-3f) return 1.0f;  // sin(πx)/(πx)'s limit
  return a * std::sin(kPi * x) * std::sin(kPi * x / a) / (kPi * kPi * x * x);
}

void lanczos_row(float* row, float a, std::int64_t o, std::int64_t start, std::int64_t size, std::int64_t out_size) {
  const float scale = static_cast<float>(out_size) / static_cast<float>(size);
  const auto inv_scale = static_cast<float>(1.0 / scale);
  const float sample = (static_cast<float>(o) + 0.5f) * inv_scale;
  const auto first = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(sample - a - 0.5f)), 0, size - 1);
  const auto end = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(sample + a - 0.5f)), 0, size - 1) + 1;
  std::vector<float> weights;
  float total = 0.0f;
  for (std::int64_t i = first; i < end; ++i) {
    weights.push_back(lanczos(a, static_cast<float>(i) + 0.5f - sample));
    total += weights.back();
  }
  // TF leaves a row whose weights cancel out at zero.
  if (std::fabs(total) < 1000.0f * std::numeric_limits<float>::min()) return;
  const float one_over_total = 1.0f / total;
  for (std::int64_t i = first; i < end; ++i) row[start + i] += weights[i - first] * one_over_total;
}

}  // namespace

void check_resize_interpolation(const std::string& layer, const std::string& interpolation) {
  for (const char* known : {"bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5"}) {
    if (interpolation == known) return;
  }
  throw ValueError(layer + ": interpolation must be one of bilinear, nearest, bicubic, area, lanczos3, " +
                   "lanczos5; got '" + interpolation + "'");
}

std::vector<float> interpolation_matrix(std::int64_t in_size, AxisWindow window,
                                        std::int64_t out_size, const std::string& interpolation) {
  std::vector<float> m(static_cast<std::size_t>(out_size * in_size), 0.0f);
  const double scale = static_cast<double>(window.size) / static_cast<double>(out_size);
  for (std::int64_t o = 0; o < out_size; ++o) {
    float* row = m.data() + o * in_size;
    if (interpolation == "area") {
      area_row(row, o, window.start, window.size, out_size);
      continue;
    }
    if (interpolation == "lanczos3" || interpolation == "lanczos5") {
      lanczos_row(row, interpolation == "lanczos3" ? 3.0f : 5.0f, o, window.start, window.size, out_size);
      continue;
    }
    if (interpolation == "nearest") {
      const auto src = std::min(static_cast<std::int64_t>(std::floor((o + 0.5) * scale)), window.size - 1);
      row[window.start + src] = 1.0f;
      continue;
    }
    // Half-pixel centers: the source position of output o's center.
    const double src = (o + 0.5) * scale - 0.5;
    if (interpolation == "bicubic") {
      bicubic_row(row, src, window.start, window.size);
      continue;
    }
    const double floor_src = std::floor(src);
    const auto lower = std::max<std::int64_t>(static_cast<std::int64_t>(floor_src), 0);
    const auto upper = std::min<std::int64_t>(static_cast<std::int64_t>(std::ceil(src)), window.size - 1);
    const auto lerp = static_cast<float>(src - floor_src);
    row[window.start + lower] += 1.0f - lerp;
    row[window.start + upper] += lerp;
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
                           std::int64_t out_size, const std::string& interpolation) {
  const std::vector<float> m = interpolation_matrix(in_size, window, out_size, interpolation);
  std::vector<float> t(m.size());
  for (std::int64_t o = 0; o < out_size; ++o)
    for (std::int64_t i = 0; i < in_size; ++i) t[i * out_size + o] = m[o * in_size + i];
  return Variable(path, Tensor::from_vector(Shape{in_size, out_size}, t), /*trainable=*/false);
}

}  // namespace

ResizeMatrices resize_matrices(const std::string& layer, std::int64_t in_h, std::int64_t in_w,
                               AxisWindow rows, AxisWindow cols, std::int64_t out_h,
                               std::int64_t out_w, const std::string& interpolation) {
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
  return {transposed_matrix(layer + "/resize_rows", in_h, rows, out_h, interpolation),
          transposed_matrix(layer + "/resize_cols", in_w, cols, out_w, interpolation)};
}

Output resize_images(Graph& graph, Output x, const ResizeMatrices& m) {
  // (B, H, W, C) -> (B, W, C, H) · rows -> (B, W, C, h) -> (B, h, C, W) · cols
  // -> (B, h, C, w) -> (B, h, w, C).
  Output t = ops::matmul(ops::transpose(x, {0, 2, 3, 1}), graph.variable(m.rows));
  t = ops::matmul(ops::transpose(t, {0, 3, 2, 1}), graph.variable(m.cols));
  return ops::transpose(t, {0, 1, 3, 2});
}

}  // namespace strata::layers
