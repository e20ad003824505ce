#include "core/cpu/direct_conv.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cpu/vector_clamp.h"
#include "core/cpu/vector_math.h"
#include "core/error.h"

namespace strata::cpu {
namespace {

using Geom = ops::Conv2DGeometry;
using simd::kLanes;
using simd::Vec;

// Vector registers of the library's target: 32 with AVX-512, 16 with AVX2.
constexpr int kRegisters = kLanes == 16 ? 32 : 16;
// Most vectors of output channels per pixel: a tap's V kernel vectors, P·V accumulators
// and a broadcast input must fit the registers with at least one pixel (and at most the
// 8 instantiated below: 128 channels with AVX-512, 56 with AVX2).
constexpr int kMostVectors = std::min(8, (kRegisters - 2) / 2);

// Pixels per pass for V vectors of channels: as many as the registers hold (at most 8,
// a row of MobileNetV2's stem is 112 pixels).
constexpr int pixels_for(int vectors) { return std::clamp((kRegisters - 2 - vectors) / vectors, 1, 8); }

// A tap's row of the kernel padded to whole vectors (the last one's lanes past O are 0),
// so the pixel loop never tests for the last vector; likewise the bias. In the calling
// thread's scratch: a step allocates nothing.
struct Padded {
  const float* kernel;  // (kh, kw, C, V·kLanes)
  const float* bias;    // V·kLanes, zeros without a bias
};

Padded pad(const Geom& g, const float* k, const float* bias, int vectors) {
  const std::int64_t width = vectors * kLanes, taps = g.kh * g.kw * g.c;
  float* kernel = scratch(0, static_cast<std::size_t>((taps + 1) * width));
  float* padded_bias = kernel + taps * width;
  std::fill_n(kernel, (taps + 1) * width, 0.f);
  for (std::int64_t t = 0; t < taps; ++t) std::copy_n(k + t * g.o, g.o, kernel + t * width);
  if (bias) std::copy_n(bias, g.o, padded_bias);
  return {kernel, padded_bias};
}

// One output row's pixels [ox, ox + P) (all inside the row) of image `n`: the taps of
// kernel rows [ky0, ky1) (the rows inside the image), each column tested against the
// image's edges where `edge` (the pixels whose window leaves the row), then the epilogue.
template <int V, int P, bool edge>
void pixels(const Geom& g, const float* image, const Padded& w, std::int64_t oy, std::int64_t ky0, std::int64_t ky1,
            std::int64_t ox, float* out, const Epilogue& e, std::int64_t first_pixel) {
  constexpr std::int64_t kWidth = V * kLanes;
  Vec acc[P][V] = {};
  for (std::int64_t ky = ky0; ky < ky1; ++ky) {
    const float* row = image + (oy * g.sh - g.pt + ky) * g.w * g.c;
    for (std::int64_t kx = 0; kx < g.kw; ++kx) {
      const float* taps = w.kernel + (ky * g.kw + kx) * g.c * kWidth;
      for (std::int64_t ci = 0; ci < g.c; ++ci) {
        // Unrolled, so that the accumulators live in registers (GCC at -O2 kept them in
        // memory, a load and a store around every multiply-add).
        Vec kv[V];
#pragma GCC unroll 8
        for (int v = 0; v < V; ++v) kv[v] = simd::load(taps + ci * kWidth + v * kLanes);
#pragma GCC unroll 8
        for (int p = 0; p < P; ++p) {
          const std::int64_t ix = (ox + p) * g.sw - g.pl + kx;
          if constexpr (edge) {
            if (ix < 0 || ix >= g.w) continue;
          }
          const Vec in = simd::splat(row[ix * g.c + ci]);
#pragma GCC unroll 8
          for (int v = 0; v < V; ++v) acc[p][v] += in * kv[v];
        }
      }
    }
  }
  // The epilogue in apply_epilogue's order: (sum + bias) + residual, then the clamp.
  for (int p = 0; p < P; ++p) {
    float* y = out + (ox + p) * g.o;
    const float* residual = e.residual ? e.residual + (first_pixel + ox + p) * e.residual_ld : nullptr;
    for (int v = 0; v < V; ++v) {
      Vec value = acc[p][v] + simd::load(w.bias + v * kLanes);
      const std::int64_t c0 = v * kLanes, live = std::min<std::int64_t>(kLanes, g.o - c0);
      if (live == kLanes) {
        if (residual) value += simd::load(residual + c0);
        simd::store(y + c0, simd::clamp(e.activation, value));
      } else {  // the last vector's channels past O are not y's
        float lanes[kLanes];
        simd::store(lanes, value);
        for (std::int64_t j = 0; j < live; ++j) {
          y[c0 + j] = simd::clamp(e.activation, lanes[j] + (residual ? residual[c0 + j] : 0.f));
        }
      }
    }
  }
}

// Output rows [r0, r1) (numbered over images and rows) with V vectors of channels.
template <int V>
void rows(const Geom& g, const float* x, const Padded& w, float* y, const Epilogue& e, std::int64_t r0,
          std::int64_t r1) {
  constexpr int P = pixels_for(V);
  // The pixels whose windows lie inside a row: ix = ox·sw − pl + kx within [0, w) for
  // every kx.
  const std::int64_t inner0 = std::min(g.ow, (g.pl + g.sw - 1) / g.sw);
  const std::int64_t inner1 = std::max(inner0, std::min(g.ow, (g.w + g.pl - g.kw) / g.sw + 1));
  for (std::int64_t r = r0; r < r1; ++r) {
    const std::int64_t n = r / g.oh, oy = r % g.oh;
    const float* image = x + n * g.h * g.w * g.c;
    const std::int64_t top = oy * g.sh - g.pt;  // the window's first input row
    const std::int64_t ky0 = std::clamp<std::int64_t>(-top, 0, g.kh);
    const std::int64_t ky1 = std::clamp<std::int64_t>(g.h - top, 0, g.kh);
    const std::int64_t first_pixel = r * g.ow;
    float* out = y + first_pixel * g.o;
    std::int64_t ox = 0;
    for (; ox < inner0; ++ox) pixels<V, 1, true>(g, image, w, oy, ky0, ky1, ox, out, e, first_pixel);
    for (; ox + P <= inner1; ox += P) pixels<V, P, false>(g, image, w, oy, ky0, ky1, ox, out, e, first_pixel);
    for (; ox < inner1; ++ox) pixels<V, 1, false>(g, image, w, oy, ky0, ky1, ox, out, e, first_pixel);
    for (; ox < g.ow; ++ox) pixels<V, 1, true>(g, image, w, oy, ky0, ky1, ox, out, e, first_pixel);
    if (e.works_on_rows()) apply_row_passes(e, out, g.ow * g.o);
  }
}

template <int V>
void run(const Geom& g, const float* x, const Padded& w, float* y, const Epilogue& e) {
  // A row's work: ow·kh·kw·C·V vector multiply-adds of kLanes.
  parallel_for(g.n * g.oh, [&](std::int64_t r0, std::int64_t r1) { rows<V>(g, x, w, y, e, r0, r1); },
               threshold_for(g.ow * g.kh * g.kw * g.c * V * kLanes));
}

}  // namespace

std::int64_t direct_conv_lanes() { return kLanes; }
std::int64_t direct_conv_most_outputs() { return std::min<std::int64_t>(kDirectConvOutputs, kMostVectors * kLanes); }

bool direct_conv_applies(const Geom& g) {
  static const char* const setting = std::getenv("STRATA_DIRECT_CONV");
  if (setting && std::string_view(setting) == "0") return false;
  return g.groups == 1 && g.dh == 1 && g.dw == 1 && g.c <= kDirectConvChannels &&
         g.kh * g.kw * g.c <= kDirectConvDepth && g.o > 0 && g.o <= direct_conv_most_outputs();
}

void direct_conv2d(const Geom& g, const float* x, const float* k, float* y, const Epilogue& e) {
  if (g.n * g.oh * g.ow == 0) return;
  const int vectors = static_cast<int>((g.o + kLanes - 1) / kLanes);
  const Padded w = pad(g, k, e.bias, vectors);
  switch (vectors) {
    case 1: return run<1>(g, x, w, y, e);
    case 2: return run<2>(g, x, w, y, e);
    case 3: return run<3>(g, x, w, y, e);
    case 4: return run<4>(g, x, w, y, e);
    case 5: return run<5>(g, x, w, y, e);
    case 6: return run<6>(g, x, w, y, e);
    case 7: if constexpr (kMostVectors >= 7) return run<7>(g, x, w, y, e); break;
    case 8: if constexpr (kMostVectors >= 8) return run<8>(g, x, w, y, e); break;
    default: break;
  }
  throw Error("direct_conv2d: " + std::to_string(g.o) + " output channels, more than direct_conv_applies allows");
}

}  // namespace strata::cpu
