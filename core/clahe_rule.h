// Contrast limited adaptive histogram equalization (CLAHE) as Keras 3.15's
// ContrastLimitedAdaptiveHistogramEqualization computes it, on images already in [0, 255]:
// each image padded symmetrically (edge pixel repeated, as numpy's "symmetric") up to whole
// tiles of ceil(H / grid_h) x ceil(W / grid_w); per tile and channel a 256-bin histogram of
// the pixels' whole parts (clipped to [0, 255]), its bins clipped at
// clip_limit · tile pixels / 256 with the excess spread evenly over all bins (when
// clip_limit > 0), its cumulative sum mapped to (cdf − cdf_min) · 255 / (tile pixels −
// cdf_min) (a denominator of 0 taken as 1) and clipped to [0, 255]; each output pixel the
// bilinear blend of the tables of the four tiles whose centres surround it (edge tiles
// repeated beyond the grid), read at the pixel's bin. Plain C++ that compiles for the host
// and for CUDA devices alike: the CPU kernels (core/cpu/kernels/image.cc) and the CUDA ones
// (core/cuda/clahe.cu) compute through it, in the same float32 order as Keras's ops.
#pragma once

#include <cmath>
#include <cstdint>

#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata {

inline constexpr std::int64_t kClaheBins = 256;

// One batch's geometry: images (batch, height, width, channels), tiles on a grid_h x
// grid_w grid, each tile_h x tile_w pixels of the padded image.
struct ClaheGeometry {
  std::int64_t height = 0, width = 0, channels = 0;
  std::int64_t grid_h = 0, grid_w = 0, tile_h = 0, tile_w = 0;
  double clip_limit = 0.0;  // Keras's, a Python float
};

// The source row (or column) of padded row i on an axis of `len` pixels: numpy's
// "symmetric" padding after the end, which needs i < 2 len (the ops check it).
STRATA_HOST_DEVICE inline std::int64_t clahe_source(std::int64_t i, std::int64_t len) {
  return i < len ? i : 2 * len - 1 - i;
}

// A pixel's bin: its whole part (Keras's int32 cast) within [0, 255]. NaN, which no
// comparison clips, goes to bin 0 (a bin index from it would be undefined, and written to).
STRATA_HOST_DEVICE inline std::int64_t clahe_bin(float v) {
  const float clipped = v >= 0.f ? (v > 255.f ? 255.f : v) : 0.f;
  return static_cast<std::int64_t>(clipped);
}

// The 256-entry table of tile (ty, tx), channel c of `image` (height, width, channels),
// written to table[0], table[stride], ... (the histogram is built in place).
STRATA_HOST_DEVICE inline void clahe_tile_table(const float* image, const ClaheGeometry& g, std::int64_t ty,
                                                std::int64_t tx, std::int64_t c, float* table) {
  for (std::int64_t k = 0; k < kClaheBins; ++k) table[k] = 0.f;
  for (std::int64_t r = 0; r < g.tile_h; ++r) {
    const std::int64_t y = clahe_source(ty * g.tile_h + r, g.height);
    for (std::int64_t q = 0; q < g.tile_w; ++q) {
      const std::int64_t x = clahe_source(tx * g.tile_w + q, g.width);
      table[clahe_bin(image[(y * g.width + x) * g.channels + c])] += 1.f;
    }
  }
  const std::int64_t pixels = g.tile_h * g.tile_w;
  if (g.clip_limit > 0.0) {
    const auto limit = static_cast<float>(g.clip_limit * static_cast<double>(pixels) / 256.0);
    float excess = 0.f;
    for (std::int64_t k = 0; k < kClaheBins; ++k) {
      const float clipped = table[k] > limit ? limit : table[k];
      excess += table[k] - clipped;
      table[k] = clipped;
    }
    const float redistributed = excess / 256.f;
    for (std::int64_t k = 0; k < kClaheBins; ++k) table[k] += redistributed;
  }
  for (std::int64_t k = 1; k < kClaheBins; ++k) table[k] += table[k - 1];
  const float cdf_min = table[0];  // the cumulative sum never falls
  float denominator = static_cast<float>(pixels) - cdf_min;
  if (denominator == 0.f) denominator = 1.f;
  for (std::int64_t k = 0; k < kClaheBins; ++k) {
    const float v = (table[k] - cdf_min) * 255.f / denominator;
    table[k] = v < 0.f ? 0.f : (v > 255.f ? 255.f : v);
  }
}

// Where output row (or column) i falls between tile centres: the lower and upper tables'
// indices in the grid padded by one tile each side, and the upper one's weight.
struct ClaheAxisBlend {
  std::int64_t lower = 0, upper = 0;
  float weight = 0.f;
};

STRATA_HOST_DEVICE inline ClaheAxisBlend clahe_axis_blend(std::int64_t i, std::int64_t tile, std::int64_t grid) {
  const float t = static_cast<float>(tile);
  const float at = (static_cast<float>(i) - t / 2.f) / t + 1.f;
  const float lower = floorf(at);
  const auto last = static_cast<float>(grid + 1);
  const auto clamp = [last](float v) { return v < 0.f ? 0.f : (v > last ? last : v); };
  ClaheAxisBlend b;
  b.weight = at - lower;
  b.lower = static_cast<std::int64_t>(clamp(lower));
  b.upper = static_cast<std::int64_t>(clamp(lower + 1.f));
  return b;
}

// Output pixel (y, x, c) of `image` (height, width, channels) from its tables
// (grid_h, grid_w, channels, 256): index p of the padded grid is tile p − 1, clamped.
STRATA_HOST_DEVICE inline float clahe_pixel(const float* image, const float* tables, const ClaheGeometry& g,
                                            std::int64_t y, std::int64_t x, std::int64_t c) {
  const ClaheAxisBlend by = clahe_axis_blend(y, g.tile_h, g.grid_h);
  const ClaheAxisBlend bx = clahe_axis_blend(x, g.tile_w, g.grid_w);
  const std::int64_t bin = clahe_bin(image[(y * g.width + x) * g.channels + c]);
  const auto read = [&](std::int64_t py, std::int64_t px) {
    const std::int64_t ty = py == 0 ? 0 : (py > g.grid_h ? g.grid_h - 1 : py - 1);
    const std::int64_t tx = px == 0 ? 0 : (px > g.grid_w ? g.grid_w - 1 : px - 1);
    return tables[((ty * g.grid_w + tx) * g.channels + c) * kClaheBins + bin];
  };
  const float top = read(by.lower, bx.lower) * (1.f - bx.weight) + read(by.lower, bx.upper) * bx.weight;
  const float bottom = read(by.upper, bx.lower) * (1.f - bx.weight) + read(by.upper, bx.upper) * bx.weight;
  return top * (1.f - by.weight) + bottom * by.weight;
}

}  // namespace strata
