#include "core/cpu/depthwise_conv.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cpu/vector_math.h"

namespace strata::cpu {
namespace {

using Geom = ops::Conv2DGeometry;

// The scratch slot of the repacked window (core/cpu/scratch.h): no other buffer is
// held across a depthwise call.
constexpr int kPackedKernelSlot = 0;

// The taps t in [first, last) whose input coordinate base + t·dilation lies in [0, extent):
// computed once per output row or pixel, so the inner loops test no bounds.
struct TapRange {
  std::int64_t first = 0, last = 0;
};
TapRange valid_taps(std::int64_t base, std::int64_t dilation, std::int64_t taps, std::int64_t extent) {
  TapRange r;
  if (dilation == 1) {  // no division: this runs once per output pixel
    r.first = std::max<std::int64_t>(0, -base);
    r.last = std::max(r.first, std::min(taps, extent - base));
    return r;
  }
  r.first = base >= 0 ? 0 : (-base + dilation - 1) / dilation;
  r.last = base >= extent ? 0 : std::min(taps, (extent - base + dilation - 1) / dilation);
  r.last = std::max(r.last, r.first);
  return r;
}

// Output row (image n, row oy), output channels [o0, o0 + Lanes): each pixel's sums live in
// `acc` and are stored once. The generic form, for a depth multiplier above 1 (each lane
// reads input channel o / dm through `source`) and for the channels left after whole
// vectors; GCC keeps `acc` on the stack, so whole vectors run row_block_vectors below.
// With depth_multiplier 1 (every depthwise layer of keras.applications) input and output
// channels coincide, and the lanes read x and k contiguously.
template <int Lanes, bool Multiplied>
void row_block(const Geom& g, const float* x_image, const float* k, const float* bias, Activation activation, std::int64_t oy,
               std::int64_t o0, float* y_row) {
  const std::int64_t dm = g.og, c0 = o0 / dm;
  std::int64_t source[Lanes];  // read only when Multiplied
  for (int j = 0; j < Lanes; ++j) source[j] = (o0 + j) / dm - c0;
  const TapRange rows = valid_taps(oy * g.sh - g.pt, g.dh, g.kh, g.h);
  for (std::int64_t ox = 0; ox < g.ow; ++ox) {
    const std::int64_t ix0 = ox * g.sw - g.pl;
    const TapRange cols = valid_taps(ix0, g.dw, g.kw, g.w);
    float acc[Lanes];
    for (int j = 0; j < Lanes; ++j) acc[j] = bias ? bias[o0 + j] : 0.f;
    for (std::int64_t ky = rows.first; ky < rows.last; ++ky) {
      const float* x_row = x_image + (oy * g.sh + ky * g.dh - g.pt) * g.w * g.c + c0;
      const float* k_row = k + ky * g.kw * g.o + o0;
      for (std::int64_t kx = cols.first; kx < cols.last; ++kx) {
        const float* __restrict xp = x_row + (ix0 + kx * g.dw) * g.c;
        const float* __restrict kp = k_row + kx * g.o;
        if constexpr (Multiplied) {
          for (int j = 0; j < Lanes; ++j) acc[j] += xp[source[j]] * kp[j];
        } else {
          for (int j = 0; j < Lanes; ++j) acc[j] += xp[j] * kp[j];
        }
      }
    }
    float* out = y_row + ox * g.o + o0;
    for (int j = 0; j < Lanes; ++j) out[j] = apply_clamp(activation, acc[j]);
    if (activation == Activation::kSilu) apply_silu(out, Lanes);
  }
}

// One vector register of floats (core/cpu/vector_math.h: 16 with AVX-512, 8 with AVX2).
// Loads and stores go through memcpy: the rows of x, k and y are aligned to a float only.
using simd::Vec;
using simd::load;
using simd::store;
constexpr int kVecLanes = simd::kLanes;

// The activation on a vector: relu makes NaN 0, relu6 keeps it, silu is the silu op's
// own function (as their ops).
inline Vec activated(Activation activation, Vec r) {
  if (activation == Activation::kSilu) return simd::silu(r);
  if (activation == Activation::kRelu) return simd::select(r > Vec{}, r, Vec{});
  if (activation == Activation::kRelu6) {
    r = simd::select(r < Vec{}, Vec{}, r);
    return simd::select(r > simd::splat(6.f), simd::splat(6.f), r);
  }
  return r;
}

// row_block with depth multiplier 1 on whole vectors, for the windows tile_window does not
// take (7×7 as ConvNeXt's, dilation, kh ≠ kw, column strides above 2), written with vector
// types: the accumulators are named registers, which the generic loop's array was not (GCC
// kept it on the stack and stalled on it at every tap).
template <int Vectors>
void row_block_vectors(const Geom& g, const float* x_image, const float* k, const float* bias, Activation activation,
                       std::int64_t oy, std::int64_t o0, float* y_row) {
  const TapRange rows = valid_taps(oy * g.sh - g.pt, g.dh, g.kh, g.h);
  Vec initial[Vectors];
  for (int v = 0; v < Vectors; ++v) initial[v] = bias ? load(bias + o0 + v * kVecLanes) : Vec{};
  for (std::int64_t ox = 0; ox < g.ow; ++ox) {
    const std::int64_t ix0 = ox * g.sw - g.pl;
    const TapRange cols = valid_taps(ix0, g.dw, g.kw, g.w);
    Vec acc[Vectors];
    for (int v = 0; v < Vectors; ++v) acc[v] = initial[v];
    for (std::int64_t ky = rows.first; ky < rows.last; ++ky) {
      const float* x_row = x_image + (oy * g.sh + ky * g.dh - g.pt) * g.w * g.c + o0;
      const float* k_row = k + ky * g.kw * g.o + o0;
      for (std::int64_t kx = cols.first; kx < cols.last; ++kx) {
        const float* xp = x_row + (ix0 + kx * g.dw) * g.c;
        const float* kp = k_row + kx * g.o;
        for (int v = 0; v < Vectors; ++v) acc[v] += load(xp + v * kVecLanes) * load(kp + v * kVecLanes);
      }
    }
    float* out = y_row + ox * g.o + o0;
    for (int v = 0; v < Vectors; ++v) store(out + v * kVecLanes, activated(activation, acc[v]));
  }
}

// A K×K window (3 or 5) of dilation 1 and column stride Stride (1 or 2) on one tile of
// Pixels output pixels whose taps all lie inside the image's columns, for every whole vector
// of channels: the vectors are the inner loop. Run a vector at a time across the row (the
// former 3×3 and 5×5 interior kernels: docs/performance.md), each load of x started a new cache line, a stride of C channels from the last, and the kernel
// waited on L2 (about 30% of MobileNetV2's batch-32 time, 12–50 GFLOP/s on two AVX2 cores);
// here the tile's lines are read whole, by consecutive vectors, while in L1.
// The addresses are one pointer per input row, stepping a vector at a time, plus column · C
// (offsets the loop does not change; the pointers of three per row, columns 0–2, 3–5 and
// 6–8, ran 10–30% slower), and the weights repacked vector by vector ([vector][tap][lane],
// `packed`) so their offsets are constants.
// The sums run in the general loop's order (bias, then the taps row by row). `x_tile` is the
// tile's top-left tap (it may lie above the image, in rows outside [row_first, row_last),
// which are skipped); y_tile its first output.
template <int K, int Stride, int Pixels>
void tile_window(const float* x_tile, std::int64_t row_stride, std::int64_t c, int row_first, int row_last,
                 const float* packed, const float* bias, Activation activation, float* y_tile, std::int64_t vectors) {
  const float* row[K];
  for (int ky = 0; ky < K; ++ky) row[ky] = x_tile + ky * row_stride;
  float* y = y_tile;  // output pixels C apart: a depth multiplier of 1
  for (std::int64_t v = 0; v < vectors; ++v) {
    const Vec initial = bias ? load(bias + v * kVecLanes) : Vec{};
    Vec acc[Pixels];
#pragma GCC unroll 8
    for (int p = 0; p < Pixels; ++p) acc[p] = initial;
#pragma GCC unroll 5
    for (int ky = 0; ky < K; ++ky) {
      if (ky < row_first || ky >= row_last) continue;
#pragma GCC unroll 5
      for (int kx = 0; kx < K; ++kx) {
        const Vec w = load(packed + (ky * K + kx) * kVecLanes);
#pragma GCC unroll 8
        for (int p = 0; p < Pixels; ++p) acc[p] += load(row[ky] + (p * Stride + kx) * c) * w;
      }
    }
#pragma GCC unroll 8
    for (int p = 0; p < Pixels; ++p) store(y + p * c, activated(activation, acc[p]));
#pragma GCC unroll 5
    for (int ky = 0; ky < K; ++ky) row[ky] += kVecLanes;
    packed += K * K * kVecLanes;
    y += kVecLanes;
  }
}

// One output pixel (oy, ox) of a K×K window whose taps may fall outside the image (the
// row's first and last pixels), for every whole vector of channels, with tile_window's
// packed weights; the taps that fall inside are summed in the general loop's order. Called a
// pixel at a time, not a vector at a time: a call per vector cost a third of the layer's
// time on rows of 7 pixels.
template <int K>
void edge_pixel(const Geom& g, const float* x_image, const float* packed, const float* bias, Activation activation,
                std::int64_t oy, std::int64_t ox, float* y_row, std::int64_t vectors) {
  const std::int64_t top = oy * g.sh - g.pt, left = ox * g.sw - g.pl, c = g.c;
  const TapRange rows = valid_taps(top, 1, K, g.h), cols = valid_taps(left, 1, K, g.w);
  const float* x_tile = x_image + (top * g.w + left) * c;  // may point outside the image: only valid taps are read
  float* out = y_row + ox * g.o;
  // Four vectors at a time: four independent chains of multiply-adds (one chain waited on
  // each add's latency: 7-pixel rows of 5×5 windows are mostly edge), each summed in the
  // general loop's order.
  auto vectors_from = [&]<int N>(std::int64_t v) __attribute__((always_inline)) {
    Vec acc[N];
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) acc[j] = bias ? load(bias + (v + j) * kVecLanes) : Vec{};
    for (std::int64_t ky = rows.first; ky < rows.last; ++ky) {
      for (std::int64_t kx = cols.first; kx < cols.last; ++kx) {
        const float* xp = x_tile + (ky * g.w + kx) * c + v * kVecLanes;
        const float* kp = packed + (v * K * K + ky * K + kx) * kVecLanes;
#pragma GCC unroll 4
        for (int j = 0; j < N; ++j) acc[j] += load(xp + j * kVecLanes) * load(kp + j * K * K * kVecLanes);
      }
    }
#pragma GCC unroll 4
    for (int j = 0; j < N; ++j) store(out + (v + j) * kVecLanes, activated(activation, acc[j]));
  };
  std::int64_t v = 0;
  for (; v + 4 <= vectors; v += 4) vectors_from.template operator()<4>(v);
  for (; v < vectors; ++v) vectors_from.template operator()<1>(v);
}

// One output row's interior pixels [ox_begin, ox_end) of a K×K window (dilation 1, stride
// 1 or 2, depth multiplier 1), every whole vector of channels, through tile_window: tiles of
// six (stride 1) or three (stride 2) pixels, then the pixels left in narrower tiles.
template <int K>
void row_interior_tiles(const Geom& g, const float* x_image, const float* packed, const float* bias, Activation activation,
                        std::int64_t oy, float* y_row, std::int64_t ox_begin, std::int64_t ox_end, std::int64_t vectors) {
  const std::int64_t top = oy * g.sh - g.pt;
  const TapRange rows = valid_taps(top, 1, K, g.h);
  const std::int64_t c = g.c, row_stride = g.w * c;
  const float* x_top = x_image + top * row_stride;  // may point above the image: its rows are skipped
  auto run = [&]<int Stride, int Pixels>(std::int64_t ox) {
    tile_window<K, Stride, Pixels>(x_top + (ox * Stride - g.pl) * c, row_stride, c, static_cast<int>(rows.first),
                                   static_cast<int>(rows.last), packed, bias, activation, y_row + ox * g.o, vectors);
  };
  // Stride 1: tiles of six pixels (eight columns of a 3×3 window, ten of a 5×5: each x
  // loaded serves up to K pixels; six measured faster than four and eight on EfficientNetB0's
  // and MobileNetV2's shapes). The pixels left after the whole tiles go in one or two
  // narrower tiles, not one pixel at a time, where each multiply-add loaded its weight
  // beside its x (7-pixel rows of 5×5 windows have 3 interior pixels).
  constexpr int kWide = 6;
  std::int64_t ox = ox_begin;
  if (g.sw == 1) {
    for (; ox + kWide <= ox_end; ox += kWide) run.template operator()<1, kWide>(ox);
    if (ox + 4 <= ox_end) {
      run.template operator()<1, 4>(ox);
      ox += 4;
    }
    if (ox_end - ox == 3) run.template operator()<1, 3>(ox);
    if (ox_end - ox == 2) run.template operator()<1, 2>(ox);
    if (ox_end - ox == 1) run.template operator()<1, 1>(ox);
  } else {
    for (; ox + 3 <= ox_end; ox += 3) run.template operator()<2, 3>(ox);
    if (ox_end - ox == 2) run.template operator()<2, 2>(ox);
    if (ox_end - ox == 1) run.template operator()<2, 1>(ox);
  }
}

// One output row's pixels, every whole vector of channels, through the tiles: the edge
// pixels [0, lo) and [hi, ow) one at a time, the interior [lo, hi) in tiles.
template <int K>
void sweep_row_tiles(const Geom& g, const float* x_image, const float* packed, const float* bias, Activation activation,
                     std::int64_t oy, float* y_row, std::int64_t lo, std::int64_t hi) {
  const std::int64_t vectors = g.o / kVecLanes;
  for (std::int64_t ox = 0; ox < lo; ++ox) edge_pixel<K>(g, x_image, packed, bias, activation, oy, ox, y_row, vectors);
  row_interior_tiles<K>(g, x_image, packed, bias, activation, oy, y_row, lo, hi, vectors);
  for (std::int64_t ox = hi; ox < g.ow; ++ox) edge_pixel<K>(g, x_image, packed, bias, activation, oy, ox, y_row, vectors);
}

// True where a row's whole vectors of channels run tile_window: depth multiplier 1, at
// least a vector of channels, a 3×3 or 5×5 window, dilation 1, column stride 1 or 2 (every
// depthwise layer of MobileNetV2 and EfficientNetB0).
bool runs_tiles(const Geom& g) {
  return g.og == 1 && g.o >= kVecLanes && (g.kh == 3 || g.kh == 5) && g.kw == g.kh && g.dh == 1 && g.dw == 1 &&
         (g.sw == 1 || g.sw == 2);
}

// Every output channel of one output row: the whole vectors through tile_window and
// edge_pixel where runs_tiles (`packed`: the window's whole vectors repacked for them,
// else null), else in blocks of four vectors (64 channels with AVX-512, 32 with AVX2) and
// of one; then the channels left in blocks of 16 (a depth multiplier above 1) and of one
// (the generic loop).
template <bool Multiplied>
void sweep_row(const Geom& g, const float* x_image, const float* k, const float* packed, const float* bias,
               Activation activation, std::int64_t oy, float* y_row) {
  std::int64_t o0 = 0;
  if constexpr (!Multiplied) {
    // A square window's whole vectors run in tiles (the columns whose taps are all inside
    // the image) and edge pixels; the channels left over, the general loops below.
    if (packed) {
      const std::int64_t lo = std::min(g.ow, (g.pl + g.sw - 1) / g.sw);
      const std::int64_t last = g.w - g.kw + g.pl;  // the last interior pixel's first column, times the stride
      const std::int64_t hi = std::clamp<std::int64_t>(last >= 0 ? last / g.sw + 1 : 0, lo, g.ow);
      if (g.kh == 3) {
        sweep_row_tiles<3>(g, x_image, packed, bias, activation, oy, y_row, lo, hi);
      } else {
        sweep_row_tiles<5>(g, x_image, packed, bias, activation, oy, y_row, lo, hi);
      }
      o0 = g.o / kVecLanes * kVecLanes;
    }
    for (; o0 + 4 * kVecLanes <= g.o; o0 += 4 * kVecLanes) {
      row_block_vectors<4>(g, x_image, k, bias, activation, oy, o0, y_row);
    }
    for (; o0 + kVecLanes <= g.o; o0 += kVecLanes) {
      row_block_vectors<1>(g, x_image, k, bias, activation, oy, o0, y_row);
    }
  }
  for (; o0 + 16 <= g.o; o0 += 16) row_block<16, Multiplied>(g, x_image, k, bias, activation, oy, o0, y_row);
  for (; o0 < g.o; ++o0) row_block<1, Multiplied>(g, x_image, k, bias, activation, oy, o0, y_row);
}

}  // namespace

void depthwise_conv2d(const Geom& g, const float* x, const float* k, const float* bias, Activation activation, float* y) {
  const std::int64_t rows = g.n * g.oh;
  const std::int64_t work_per_row = g.ow * g.o * g.kh * g.kw;
  // The window's whole vectors, [vector][tap][lane], for tile_window: in the calling
  // thread's scratch (a step allocates nothing), read by every task of this call.
  float* packed_k = nullptr;
  if (runs_tiles(g)) {
    const std::int64_t vectors = g.o / kVecLanes, taps = g.kh * g.kw;
    packed_k = scratch(kPackedKernelSlot, static_cast<std::size_t>(vectors * taps * kVecLanes));
    for (std::int64_t v = 0; v < vectors; ++v) {
      for (std::int64_t tap = 0; tap < taps; ++tap) {
        std::memcpy(packed_k + (v * taps + tap) * kVecLanes, k + tap * g.o + v * kVecLanes, kVecLanes * sizeof(float));
      }
    }
  }
  parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t n = r / g.oh, oy = r % g.oh;
      const float* x_image = x + n * g.h * g.w * g.c;
      float* y_row = y + r * g.ow * g.o;
      // The generic blocks' weights (kh·kw·Lanes floats) stay in L1 while a block sweeps the
      // row; the tiles stream the packed window once per tile.
      if (g.og == 1) {
        sweep_row<false>(g, x_image, k, packed_k, bias, activation, oy, y_row);
      } else {
        sweep_row<true>(g, x_image, k, nullptr, bias, activation, oy, y_row);
      }
    }
  }, threshold_for(work_per_row));
}

}  // namespace strata::cpu
