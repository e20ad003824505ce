// One output pixel of a projective image transform, as TensorFlow's
// ImageProjectiveTransformV3 computes it (what keras.ops.image.affine_transform runs on the
// TensorFlow backend): the output point (x, y) maps to the input point
// ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1; the fill mode maps
// that point back into the image (or not, for constant), and nearest or bilinear
// interpolation reads it, with fill_value for every read outside the image. Plain C++ that
// compiles for the host and for CUDA devices alike: the CPU kernel
// (core/cpu/kernels/image.cc) and the CUDA one (core/cuda/affine_transform.cu) sample
// through it, so both compute the same arithmetic.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata {

// Keras's fill_mode values, in the order the op's "fill_mode" attribute numbers them.
enum class AffineFill : int { reflect = 0, wrap = 1, constant = 2, nearest = 3 };

STRATA_HOST_DEVICE inline float clamp_coordinate(float v, std::int64_t len) {
  const float hi = static_cast<float>(len - 1);
  return v < 0.f ? 0.f : (v > hi ? hi : v);
}

// The input coordinate a fill mode reads for `coord` on an axis of `len` pixels.
// TensorFlow's arithmetic kept as it is (its reflect folds every negative coordinate by
// whole periods first, then mirrors), so border pixels match it exactly.
STRATA_HOST_DEVICE inline float fill_coordinate(float coord, std::int64_t len, AffineFill mode) {
  switch (mode) {
    case AffineFill::reflect:
      if (coord < 0) {
        if (len <= 1) return 0.f;
        const std::int64_t sz2 = 2 * len;
        coord = static_cast<float>(sz2 * static_cast<std::int64_t>(-coord / static_cast<float>(sz2))) + coord;
        coord = coord < static_cast<float>(-len) ? coord + static_cast<float>(sz2) : -coord - 1;
      } else if (coord > static_cast<float>(len - 1)) {
        if (len <= 1) return 0.f;
        const std::int64_t sz2 = 2 * len;
        coord -= static_cast<float>(sz2 * static_cast<std::int64_t>(coord / static_cast<float>(sz2)));
        if (coord >= static_cast<float>(len)) coord = static_cast<float>(sz2) - coord - 1;
      }
      return clamp_coordinate(coord, len);
    case AffineFill::wrap:
      if (coord < 0) {
        if (len <= 1) return 0.f;
        const std::int64_t sz = len - 1;
        coord += static_cast<float>(len * (static_cast<std::int64_t>(-coord / static_cast<float>(sz)) + 1));
      } else if (coord > static_cast<float>(len - 1)) {
        if (len <= 1) return 0.f;
        const std::int64_t sz = len - 1;
        coord -= static_cast<float>(len * static_cast<std::int64_t>(coord / static_cast<float>(sz)));
      }
      return clamp_coordinate(coord, len);
    case AffineFill::constant:
      return coord;
    case AffineFill::nearest:
      return clamp_coordinate(coord, len);
  }
  return coord;
}

// The image's geometry (NHWC) and the sampling rule of one op.
struct AffineImage {
  std::int64_t height = 0, width = 0, channels = 0;
  AffineFill fill = AffineFill::reflect;
  bool bilinear = true;
  float fill_value = 0.f;
};

// Pixel (y, x), channel c of `image` (one image, HWC), or fill_value outside it.
STRATA_HOST_DEVICE inline float read_or_fill(const float* image, const AffineImage& g, std::int64_t y, std::int64_t x,
                                             std::int64_t c) {
  return 0 <= y && y < g.height && 0 <= x && x < g.width ? image[(y * g.width + x) * g.channels + c] : g.fill_value;
}

// Output pixel (out_y, out_x), channel c, under the 8 numbers of `t`.
STRATA_HOST_DEVICE inline float affine_sample(const float* image, const AffineImage& g, const float* t,
                                              std::int64_t out_y, std::int64_t out_x, std::int64_t c) {
  const auto ox = static_cast<float>(out_x), oy = static_cast<float>(out_y);
  const float projection = t[6] * ox + t[7] * oy + 1.f;
  if (projection == 0) return g.fill_value;
  const float x = fill_coordinate((t[0] * ox + t[1] * oy + t[2]) / projection, g.width, g.fill);
  const float y = fill_coordinate((t[3] * ox + t[4] * oy + t[5]) / projection, g.height, g.fill);
  if (!g.bilinear) {
    const auto row = static_cast<std::int64_t>(std::round(y)), col = static_cast<std::int64_t>(std::round(x));
    return read_or_fill(image, g, row, col, c);
  }
  const float y_floor = std::floor(y), x_floor = std::floor(x);
  const float y_ceil = y_floor + 1, x_ceil = x_floor + 1;
  const auto yf = static_cast<std::int64_t>(y_floor), xf = static_cast<std::int64_t>(x_floor);
  const auto yc = static_cast<std::int64_t>(y_ceil), xc = static_cast<std::int64_t>(x_ceil);
  const float top =
      (x_ceil - x) * read_or_fill(image, g, yf, xf, c) + (x - x_floor) * read_or_fill(image, g, yf, xc, c);
  const float bottom =
      (x_ceil - x) * read_or_fill(image, g, yc, xf, c) + (x - x_floor) * read_or_fill(image, g, yc, xc, c);
  return (y_ceil - y) * top + (y - y_floor) * bottom;
}

}  // namespace strata
