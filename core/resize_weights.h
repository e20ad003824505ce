// The weights of one output position of an image resize along one axis, as TensorFlow's
// resize ops compute them (half-pixel centers but for area, whose op has none; with
// antialias, its ScaleAndTranslate), and of one bin of adaptive average pooling: output o is a fixed weighted sum of
// the inputs of a window [start, start + size) of the axis. Resizing an image is then two
// matrix products, one per axis. Plain C++ that compiles for the host and for CUDA devices
// alike: the layers' matrices made once for known sizes (layers/preprocessing/
// image_resize.cc), and the resize_weights op's kernels for sizes known only when a
// program runs (the CPU's in core/cpu/kernels/resize.cc, CUDA's in core/cuda/resize.cu),
// all write them through resize_weights_row, so every device computes the same arithmetic.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata {

// Where one output position's weights go: input i's at row[i · stride], for the `limit`
// inputs the axis has. A window may reach past them (Resizing's pad_to_aspect_ratio over
// sizes known only when the program runs resizes the padded axis, whose padding is zeros
// once the fill is subtracted): the weights of positions outside [0, limit) are dropped.
struct WeightRow {
  float* row = nullptr;
  std::int64_t stride = 1;
  std::int64_t limit = 0;
  STRATA_HOST_DEVICE void add(std::int64_t i, float w) const {
    if (i >= 0 && i < limit) row[i * stride] += w;
  }
};

// Keras's resize interpolations, and adaptive average pooling's bins, in the order the
// resize_weights op's "kind" attribute numbers them.
enum class ResizeKind : int {
  bilinear = 0,
  nearest = 1,
  bicubic = 2,
  area = 3,
  lanczos3 = 4,
  lanczos5 = 5,
  adaptive_average = 6,
  // antialias=True (TF's resize then runs ScaleAndTranslate with antialias): bilinear's
  // triangle and bicubic's Keys cubic kernels, and the Lanczos ones, stretched by 1 / scale
  // when shrinking. Nearest and area ignore antialias, as TF's.
  bilinear_antialias = 7,
  bicubic_antialias = 8,
  lanczos3_antialias = 9,
  lanczos5_antialias = 10,
};
constexpr ResizeKind kLastResizeKind = ResizeKind::lanczos5_antialias;

namespace resize_detail {

STRATA_HOST_DEVICE inline std::int64_t clamp_index(std::int64_t i, std::int64_t lo, std::int64_t hi) {
  return i < lo ? lo : (i > hi ? hi : i);
}

// TF's bicubic weights (ResizeBicubic with half-pixel centers): Keys' cubic with
// A = -0.5, read from a 1024-entry table at the rounded fraction, as TF reads it.
constexpr int kCubicTable = 1024;
STRATA_HOST_DEVICE inline double keys_cubic_near(double x) { return ((-0.5 + 2) * x - (-0.5 + 3)) * x * x + 1; }
STRATA_HOST_DEVICE inline double keys_cubic_far(double x) {  // 1 < |d| < 2
  const double a = -0.5;
  return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
}

STRATA_HOST_DEVICE inline void bicubic_row(const WeightRow& row, double src, std::int64_t start, std::int64_t size) {
  const double floor_src = std::floor(src);
  const auto in = static_cast<std::int64_t>(floor_src);
  const auto offset = static_cast<int>(std::lrint((src - floor_src) * kCubicTable));
  const double t = static_cast<double>(offset) / kCubicTable;
  const double u = static_cast<double>(kCubicTable - offset) / kCubicTable;
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
    row.add(start + in - 1 + k, static_cast<float>(std::fabs(total) >= 1000 * 1.17549435e-38 ? kept[k] / total : kept[k]));
  }
}

// TF's ResizeArea (the op Keras's "area" runs; no half-pixel offset): output o averages
// the input cells under [o·s, (o+1)·s), s = in/out, each cell by the part of it covered,
// in float as TF computes. The op scales by 1/(s_rows·s_cols) once; here each axis takes
// its own 1/s.
STRATA_HOST_DEVICE inline void area_row(const WeightRow& row, std::int64_t o, std::int64_t start, std::int64_t size,
                                        std::int64_t out_size) {
  const float s = static_cast<float>(size) / static_cast<float>(out_size);
  const float from = static_cast<float>(o) * s, to = static_cast<float>(o + 1) * s;
  const auto first = static_cast<std::int64_t>(std::floor(from)), end = static_cast<std::int64_t>(std::ceil(to));
  for (std::int64_t i = first; i < end; ++i) {
    const auto cell = static_cast<float>(i);
    const float covered = cell < from ? (cell + 1 > to ? s : cell + 1 - from) : (cell + 1 > to ? to - cell : 1.0f);
    // Rounding can reach one cell past the image; TF reads the edge cell again.
    row.add(start + clamp_index(i, 0, size - 1), covered / s);
  }
}

// TF's ScaleAndTranslate kernels of the distance x >= 0 (its sampling_kernels.h): Lanczos of
// radius a, the triangle and Keys' cubic (A = -0.5), in float as TF computes them.
STRATA_HOST_DEVICE inline float lanczos(float a, float x) {
  constexpr float kPi = 3.14159265359f;
  x = std::fabs(x);
  if (x > a) return 0.0f;
  if (x <= 1e-3f) return 1.0f;  // sin(πx)/(πx)'s limit
  return a * std::sin(kPi * x) * std::sin(kPi * x / a) / (kPi * kPi * x * x);
}
STRATA_HOST_DEVICE inline float triangle(float x) {
  x = std::fabs(x);
  return x < 1.0f ? 1.0f - x : 0.0f;
}
STRATA_HOST_DEVICE inline float keys_cubic(float x) {
  x = std::fabs(x);
  if (x >= 2.0f) return 0.0f;
  if (x >= 1.0f) return ((-0.5f * x + 2.5f) * x - 4.0f) * x + 2.0f;
  return ((1.5f * x - 2.5f) * x) * x + 1.0f;
}

// The ScaleAndTranslate kernels as (radius, kind): 0 triangle, 1 Keys cubic, 2 Lanczos.
struct SamplingKernel {
  float radius = 1.0f;
  int shape = 0;
  STRATA_HOST_DEVICE float operator()(float x) const {
    return shape == 0 ? triangle(x) : shape == 1 ? keys_cubic(x) : lanczos(radius, x);
  }
};

// TF's ScaleAndTranslate along one axis, translation 0 (its resize): output o samples at
// (o + 1/2)/scale, from the cells within the kernel's radius of it (times 1/scale when
// antialiasing a shrink), its weights normalized to sum 1; in float as TF computes.
STRATA_HOST_DEVICE inline void scale_and_translate_row(const WeightRow& row, SamplingKernel kernel, bool antialias,
                                                       std::int64_t o, std::int64_t start, std::int64_t size,
                                                       std::int64_t out_size) {
  const float scale = static_cast<float>(out_size) / static_cast<float>(size);
  const auto inv_scale = static_cast<float>(1.0 / scale);
  const float kernel_scale = antialias && inv_scale > 1.0f ? inv_scale : 1.0f;
  const float one_over_kernel_scale = 1.0f / kernel_scale;
  const float sample = (static_cast<float>(o) + 0.5f) * inv_scale;
  const float reach = kernel.radius * kernel_scale;
  const std::int64_t first = clamp_index(static_cast<std::int64_t>(std::ceil(sample - reach - 0.5f)), 0, size - 1);
  const std::int64_t end = clamp_index(static_cast<std::int64_t>(std::floor(sample + reach - 0.5f)), 0, size - 1) + 1;
  const auto weight = [&](std::int64_t i) {
    return kernel(std::fabs((static_cast<float>(i) + 0.5f - sample) * one_over_kernel_scale));
  };
  float total = 0.0f;
  for (std::int64_t i = first; i < end; ++i) total += weight(i);
  // TF leaves a row whose weights cancel out at zero (float's smallest normal: 1.17549435e-38).
  if (std::fabs(total) < 1000.0f * 1.17549435e-38f) return;
  const float one_over_total = 1.0f / total;
  for (std::int64_t i = first; i < end; ++i) row.add(start + i, weight(i) * one_over_total);
}

}  // namespace resize_detail

// Adaptive pooling's bin i of `bins` over an axis of `length` (Keras's TensorFlow
// backend): [floor(i·length/bins), ceil((i+1)·length/bins)), as (start, size).
struct AdaptiveBin {
  std::int64_t start = 0, size = 0;
};
STRATA_HOST_DEVICE inline AdaptiveBin adaptive_bin_of(std::int64_t length, std::int64_t bins, std::int64_t i) {
  const std::int64_t start = i * length / bins;                   // floor
  const std::int64_t end = ((i + 1) * length + bins - 1) / bins;  // ceil
  return {start, end - start};
}

// Adds output o's weights to the row for each input i of an axis whose window
// [start, start + size) is resized to out_size positions (the row must start zeroed). The
// window may reach past the axis's inputs on either side (start < 0, a padded axis): those
// positions' weights are dropped (WeightRow).
STRATA_HOST_DEVICE inline void resize_weights_row(const WeightRow& row, std::int64_t o, std::int64_t start,
                                                  std::int64_t size, std::int64_t out_size, ResizeKind kind) {
  using namespace resize_detail;
  switch (kind) {
    case ResizeKind::area:
      area_row(row, o, start, size, out_size);
      return;
    case ResizeKind::lanczos3:
    case ResizeKind::lanczos5:
      scale_and_translate_row(row, {kind == ResizeKind::lanczos3 ? 3.0f : 5.0f, 2}, false, o, start, size, out_size);
      return;
    case ResizeKind::bilinear_antialias:
      scale_and_translate_row(row, {1.0f, 0}, true, o, start, size, out_size);
      return;
    case ResizeKind::bicubic_antialias:
      scale_and_translate_row(row, {2.0f, 1}, true, o, start, size, out_size);
      return;
    case ResizeKind::lanczos3_antialias:
    case ResizeKind::lanczos5_antialias:
      scale_and_translate_row(row, {kind == ResizeKind::lanczos3_antialias ? 3.0f : 5.0f, 2}, true, o, start, size,
                              out_size);
      return;
    case ResizeKind::adaptive_average: {
      const AdaptiveBin bin = adaptive_bin_of(size, out_size, o);
      for (std::int64_t i = 0; i < bin.size; ++i) {
        row.add(start + bin.start + i, 1.0f / static_cast<float>(bin.size));
      }
      return;
    }
    default:
      break;
  }
  const double scale = static_cast<double>(size) / static_cast<double>(out_size);
  if (kind == ResizeKind::nearest) {
    const std::int64_t src = static_cast<std::int64_t>(std::floor((static_cast<double>(o) + 0.5) * scale));
    row.add(start + (src < size - 1 ? src : size - 1), 1.0f);
    return;
  }
  // Half-pixel centers: the source position of output o's center.
  const double src = (static_cast<double>(o) + 0.5) * scale - 0.5;
  if (kind == ResizeKind::bicubic) {
    bicubic_row(row, src, start, size);
    return;
  }
  const double floor_src = std::floor(src);
  const auto below = static_cast<std::int64_t>(floor_src), above = static_cast<std::int64_t>(std::ceil(src));
  const std::int64_t lower = below > 0 ? below : 0, upper = above < size - 1 ? above : size - 1;
  const auto lerp = static_cast<float>(src - floor_src);
  row.add(start + lower, 1.0f - lerp);
  row.add(start + upper, lerp);
}

}  // namespace strata
