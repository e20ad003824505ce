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

// The scratch slot of the repacked 3×3 kernel (core/cpu/scratch.h): no other buffer is
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
// vectors; GCC keeps `acc` on the stack, so the common case is row_block_vectors below.
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

// row_block's common case (depth multiplier 1, whole vectors), written with vector types:
// the accumulators are named registers, which the generic loop's array was not (GCC
// kept it on the stack and stalled on it at every tap).
// The row's output pixels [ox_begin, ox_end).
template <int Vectors>
void row_block_vectors(const Geom& g, const float* x_image, const float* k, const float* bias, Activation activation,
                       std::int64_t oy, std::int64_t o0, float* y_row, std::int64_t ox_begin, std::int64_t ox_end) {
  const TapRange rows = valid_taps(oy * g.sh - g.pt, g.dh, g.kh, g.h);
  Vec initial[Vectors];
  for (int v = 0; v < Vectors; ++v) initial[v] = bias ? load(bias + o0 + v * kVecLanes) : Vec{};
  for (std::int64_t ox = ox_begin; ox < ox_end; ++ox) {
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

// A K×K window (5; 3×3 windows run tile_3x3 below) of dilation 1 and column stride Stride
// over the row's output pixels [ox_begin, ox_end), every one of whose taps lies inside the
// image's columns: one vector of channels at a time, its K·K weights in registers for the
// whole run (with AVX-512's 32 registers; AVX2 spills some), and kPixels output pixels at
// once, so that a column of x loaded for one of them serves the others too (the general
// loop above loads x and the weight for each, 2 loads a multiply-add). The sums run in
// the general loop's order, so the outputs are the same bits.
template <int K, int Stride>
void row_interior(const Geom& g, const float* x_image, const float* k, const float* bias, Activation activation,
                  std::int64_t oy, std::int64_t o0, float* y_row, std::int64_t ox_begin, std::int64_t ox_end) {
  constexpr int kPixels = 4;
  const TapRange rows = valid_taps(oy * g.sh - g.pt, 1, K, g.h);
  Vec w[K][K];
#pragma GCC unroll 5
  for (int ky = 0; ky < K; ++ky) {
#pragma GCC unroll 5
    for (int kx = 0; kx < K; ++kx) w[ky][kx] = load(k + (ky * K + kx) * g.o + o0);
  }
  const Vec initial = bias ? load(bias + o0) : Vec{};
  const std::int64_t c = g.c;
  auto pixels = [&]<int N>(std::int64_t ox) __attribute__((always_inline)) {
    Vec acc[N];
#pragma GCC unroll 4
    for (int p = 0; p < N; ++p) acc[p] = initial;
#pragma GCC unroll 5
    for (int ky = 0; ky < K; ++ky) {
      if (ky < rows.first || ky >= rows.last) continue;
      const float* x_row = x_image + (oy * g.sh + ky - g.pt) * g.w * c + (ox * Stride - g.pl) * c + o0;
#pragma GCC unroll 5
      for (int kx = 0; kx < K; ++kx) {
#pragma GCC unroll 4
        for (int p = 0; p < N; ++p) acc[p] += load(x_row + (p * Stride + kx) * c) * w[ky][kx];
      }
    }
    float* out = y_row + ox * g.o + o0;
#pragma GCC unroll 4
    for (int p = 0; p < N; ++p) store(out + p * g.o, activated(activation, acc[p]));
  };
  std::int64_t ox = ox_begin;
  for (; ox + kPixels <= ox_end; ox += kPixels) pixels.template operator()<kPixels>(ox);
  for (; ox < ox_end; ++ox) pixels.template operator()<1>(ox);
}

// A 3×3 window of dilation 1 and column stride Stride (1 or 2) on one tile of Pixels
// output pixels whose taps all lie inside the image's columns, for every whole vector of
// channels: the vectors are the inner loop. Run a vector at a time across the row
// (row_interior), each load of x started a new cache line, a stride of C channels from the
// last, and the kernel waited on L2 (about 30% of MobileNetV2's batch-32 time, 12–50
// GFLOP/s on two AVX2 cores); here the tile's lines are read whole, by consecutive vectors,
// while in L1.
// The addresses are fixed offsets from nine pointers that step one vector a time: per input
// row, columns 0–2, 3–5 and 6–8 of the tile as base + {0, 1, 2}·C, and the weights repacked
// vector by vector ([vector][tap][lane], `packed`) so their offsets are constants. The
// sums run in the general loop's order (bias, then the taps row by row). `x_tile` is the tile's top-left tap (it may lie above the image, in
// rows outside [row_first, row_last), which are skipped); y_tile its first output.
template <int Stride, int Pixels>
void tile_3x3(const float* x_tile, std::int64_t row_stride, std::int64_t c, int row_first, int row_last,
              const float* packed, const float* bias, Activation activation, float* y_tile, std::int64_t vectors) {
  static_assert(Pixels <= 4 && (Pixels - 1) * Stride + 3 <= 9, "columns 0-8: three bases a row");
  const float* base[3][3];
  for (int ky = 0; ky < 3; ++ky) {
    for (int b = 0; b < 3; ++b) base[ky][b] = x_tile + ky * row_stride + 3 * b * c;
  }
  float* y_low = y_tile;           // pixels 0–2
  float* y_high = y_tile + 3 * c;  // pixel 3
  for (std::int64_t v = 0; v < vectors; ++v) {
    const Vec initial = bias ? load(bias + v * kVecLanes) : Vec{};
    Vec acc[Pixels];
#pragma GCC unroll 4
    for (int p = 0; p < Pixels; ++p) acc[p] = initial;
#pragma GCC unroll 3
    for (int ky = 0; ky < 3; ++ky) {
      if (ky < row_first || ky >= row_last) continue;
#pragma GCC unroll 3
      for (int kx = 0; kx < 3; ++kx) {
        const Vec w = load(packed + (ky * 3 + kx) * kVecLanes);
#pragma GCC unroll 4
        for (int p = 0; p < Pixels; ++p) {
          const int column = p * Stride + kx;
          acc[p] += load(base[ky][column / 3] + (column % 3) * c) * w;
        }
      }
    }
#pragma GCC unroll 4
    for (int p = 0; p < Pixels; ++p) store((p < 3 ? y_low : y_high) + (p % 3) * c, activated(activation, acc[p]));
    for (int ky = 0; ky < 3; ++ky) {
      for (int b = 0; b < 3; ++b) base[ky][b] += kVecLanes;
    }
    packed += 9 * kVecLanes;
    y_low += kVecLanes;
    y_high += kVecLanes;
  }
}

// One output pixel (oy, ox) of a 3×3 window whose taps may fall outside the image (the
// row's first and last pixels), for every whole vector of channels, with tile_3x3's packed
// weights; the taps that fall inside are summed in the general loop's order. Called a pixel
// at a time, not a vector at a time: a call per vector cost a third of the layer's time on
// rows of 7 pixels.
void edge_pixel_3x3(const Geom& g, const float* x_image, const float* packed, const float* bias, Activation activation,
                    std::int64_t oy, std::int64_t ox, float* y_row, std::int64_t vectors) {
  const std::int64_t top = oy * g.sh - g.pt, left = ox * g.sw - g.pl, c = g.c;
  const TapRange rows = valid_taps(top, 1, 3, g.h), cols = valid_taps(left, 1, 3, g.w);
  const float* x_tile = x_image + (top * g.w + left) * c;  // may point outside the image: only valid taps are read
  float* out = y_row + ox * g.o;
  for (std::int64_t v = 0; v < vectors; ++v) {
    Vec acc = bias ? load(bias + v * kVecLanes) : Vec{};
    for (std::int64_t ky = rows.first; ky < rows.last; ++ky) {
      for (std::int64_t kx = cols.first; kx < cols.last; ++kx) {
        acc += load(x_tile + (ky * g.w + kx) * c + v * kVecLanes) * load(packed + (v * 9 + ky * 3 + kx) * kVecLanes);
      }
    }
    store(out + v * kVecLanes, activated(activation, acc));
  }
}

// One output row's interior pixels [ox_begin, ox_end) of a 3×3 window (dilation 1, stride
// 1 or 2, depth multiplier 1), every whole vector of channels, through tile_3x3: tiles of
// four (stride 1) or three (stride 2) pixels, then one at a time.
void row_interior_3x3(const Geom& g, const float* x_image, const float* packed, const float* bias, Activation activation,
                      std::int64_t oy, float* y_row, std::int64_t ox_begin, std::int64_t ox_end) {
  const std::int64_t top = oy * g.sh - g.pt;
  const TapRange rows = valid_taps(top, 1, 3, g.h);
  const std::int64_t c = g.c, row_stride = g.w * c, vectors = c / kVecLanes;
  const float* x_top = x_image + top * row_stride;  // may point above the image: its rows are skipped
  auto run = [&]<int Stride, int Pixels>(std::int64_t ox) {
    tile_3x3<Stride, Pixels>(x_top + (ox * Stride - g.pl) * c, row_stride, c, static_cast<int>(rows.first),
                             static_cast<int>(rows.last), packed, bias, activation, y_row + ox * g.o, vectors);
  };
  std::int64_t ox = ox_begin;
  if (g.sw == 1) {
    for (; ox + 4 <= ox_end; ox += 4) run.template operator()<1, 4>(ox);
    for (; ox < ox_end; ++ox) run.template operator()<1, 1>(ox);
  } else {
    for (; ox + 3 <= ox_end; ox += 3) run.template operator()<2, 3>(ox);
    for (; ox < ox_end; ++ox) run.template operator()<2, 1>(ox);
  }
}

// True where the interior of a row runs a square window's kernel: 3×3 or 5×5, dilation 1,
// column stride 1 or 2 (every depthwise layer of MobileNetV2 and EfficientNetB0).
bool square_window(const Geom& g) {
  return (g.kh == 3 || g.kh == 5) && g.kw == g.kh && g.dh == 1 && g.dw == 1 && (g.sw == 1 || g.sw == 2);
}
bool runs_3x3_tiles(const Geom& g) { return g.og == 1 && square_window(g) && g.kh == 3 && g.o >= kVecLanes; }

// Every output channel of one output row, in blocks of four vectors (64 channels with
// AVX-512, 32 with AVX2), then of one, then of 16 and of one channel (the generic loop).
// `packed`: the 3×3 kernel's whole vectors repacked for tile_3x3 where runs_3x3_tiles, else
// null.
template <bool Multiplied>
void sweep_row(const Geom& g, const float* x_image, const float* k, const float* packed, const float* bias,
               Activation activation, std::int64_t oy, float* y_row) {
  std::int64_t o0 = 0;
  if constexpr (!Multiplied) {
    // The columns whose taps are all inside the image run a square window's interior
    // kernel, the edges the general loop.
    const std::int64_t kk = g.kh;
    if (square_window(g)) {
      const std::int64_t lo = std::min(g.ow, (g.pl + g.sw - 1) / g.sw);
      const std::int64_t last = g.w - kk + g.pl;  // the last interior pixel's first column, times the stride
      const std::int64_t hi = std::clamp<std::int64_t>(last >= 0 ? last / g.sw + 1 : 0, lo, g.ow);
      if (packed) {
        const std::int64_t vectors = g.o / kVecLanes;
        for (std::int64_t ox = 0; ox < lo; ++ox) {
          edge_pixel_3x3(g, x_image, packed, bias, activation, oy, ox, y_row, vectors);
        }
        row_interior_3x3(g, x_image, packed, bias, activation, oy, y_row, lo, hi);
        for (std::int64_t ox = hi; ox < g.ow; ++ox) {
          edge_pixel_3x3(g, x_image, packed, bias, activation, oy, ox, y_row, vectors);
        }
        o0 = vectors * kVecLanes;
      } else if (kk == 5) {  // a 3×3 window without tiles has under a vector of channels: the loops below
        using Run = void (*)(const Geom&, const float*, const float*, const float*, Activation, std::int64_t, std::int64_t,
                             float*, std::int64_t, std::int64_t);
        const Run interior = g.sw == 1 ? row_interior<5, 1> : row_interior<5, 2>;
        for (; o0 + kVecLanes <= g.o; o0 += kVecLanes) {
          row_block_vectors<1>(g, x_image, k, bias, activation, oy, o0, y_row, 0, lo);
          interior(g, x_image, k, bias, activation, oy, o0, y_row, lo, hi);
          row_block_vectors<1>(g, x_image, k, bias, activation, oy, o0, y_row, hi, g.ow);
        }
      }
    }
    for (; o0 + 4 * kVecLanes <= g.o; o0 += 4 * kVecLanes) {
      row_block_vectors<4>(g, x_image, k, bias, activation, oy, o0, y_row, 0, g.ow);
    }
    for (; o0 + kVecLanes <= g.o; o0 += kVecLanes) {
      row_block_vectors<1>(g, x_image, k, bias, activation, oy, o0, y_row, 0, g.ow);
    }
  }
  for (; o0 + 16 <= g.o; o0 += 16) row_block<16, Multiplied>(g, x_image, k, bias, activation, oy, o0, y_row);
  for (; o0 < g.o; ++o0) row_block<1, Multiplied>(g, x_image, k, bias, activation, oy, o0, y_row);
}

}  // namespace

void depthwise_conv2d(const Geom& g, const float* x, const float* k, const float* bias, Activation activation, float* y) {
  const std::int64_t rows = g.n * g.oh;
  const std::int64_t work_per_row = g.ow * g.o * g.kh * g.kw;
  // The 3×3 kernel's whole vectors, [vector][tap][lane], for tile_3x3: in the calling
  // thread's scratch (a step allocates nothing), read by every task of this call.
  float* packed_k = nullptr;
  if (runs_3x3_tiles(g)) {
    const std::int64_t vectors = g.o / kVecLanes;
    packed_k = scratch(kPackedKernelSlot, static_cast<std::size_t>(vectors * 9 * kVecLanes));
    for (std::int64_t v = 0; v < vectors; ++v) {
      for (std::int64_t tap = 0; tap < 9; ++tap) {
        std::memcpy(packed_k + (v * 9 + tap) * kVecLanes, k + tap * g.o + v * kVecLanes, kVecLanes * sizeof(float));
      }
    }
  }
  parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t n = r / g.oh, oy = r % g.oh;
      const float* x_image = x + n * g.h * g.w * g.c;
      float* y_row = y + r * g.ow * g.o;
      // A block's weights (kh·kw·Lanes floats) stay in L1 while the block sweeps the row.
      if (g.og == 1) {
        sweep_row<false>(g, x_image, k, packed_k, bias, activation, oy, y_row);
      } else {
        sweep_row<true>(g, x_image, k, nullptr, bias, activation, oy, y_row);
      }
    }
  }, threshold_for(work_per_row));
}

}  // namespace strata::cpu
