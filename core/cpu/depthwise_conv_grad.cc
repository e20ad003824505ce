// The depthwise convolution's gradients (depthwise_conv.h), for a depth multiplier of 1:
// run as a grouped convolution, one group per channel, they copied every window of one
// channel at a time (im2col) and scattered it back (col2im), and took 63% of the small
// MobileNet's training step (issue #37). Here, as in the forward kernel, the channels are
// the vector lanes: each output pixel's taps add dy·k into dx, or x·dy into the kernel's
// gradient, a vector of channels at a time.
#include <algorithm>
#include <vector>

#include "core/cpu/depthwise_conv.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cpu/vector_math.h"

namespace strata::cpu {
namespace {

using Geom = ops::Conv2DGeometry;
using simd::for_lanes;
using simd::load_as;
using simd::store;

// Channels per work item: each item owns its channels of an image's dx, or of a block's
// partial kernel gradient, so no two threads write one float.
constexpr std::int64_t kChannelsPerItem = 64;

// Images per block of the kernel's gradient: each block sums into its own partial, the
// partials added in block order, so the sums depend on the shape alone.
constexpr std::int64_t kImagesPerBlock = 4;

// Calls tap(x_offset, y_offset, k_offset) for every in-bounds tap of image n: x's pixel
// (iy, ix), y's pixel (oy, ox) and the tap (ky, kx), as offsets of channel 0.
template <typename Tap>
void for_each_tap(const Geom& g, std::int64_t n, Tap tap) {
  for (std::int64_t oy = 0; oy < g.oh; ++oy) {
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      const std::int64_t iy = oy * g.sh + ky * g.dh - g.pt;
      if (iy < 0 || iy >= g.h) continue;
      for (std::int64_t ox = 0; ox < g.ow; ++ox) {
        const std::int64_t y_offset = ((n * g.oh + oy) * g.ow + ox) * g.c;
        for (std::int64_t kx = 0; kx < g.kw; ++kx) {
          const std::int64_t ix = ox * g.sw + kx * g.dw - g.pl;
          if (ix < 0 || ix >= g.w) continue;
          tap(((n * g.h + iy) * g.w + ix) * g.c, y_offset, (ky * g.kw + kx) * g.c);
        }
      }
    }
  }
}

}  // namespace

void depthwise_conv2d_input_grad(const Geom& g, const float* dy, const float* k, float* dx) {
  const std::int64_t chunks = (g.c + kChannelsPerItem - 1) / kChannelsPerItem;
  parallel_for(g.n * chunks, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t item = i0; item < i1; ++item) {
      const std::int64_t n = item / chunks, c0 = item % chunks * kChannelsPerItem;
      const std::int64_t width = std::min(kChannelsPerItem, g.c - c0);
      for (std::int64_t p = 0; p < g.h * g.w; ++p) std::fill_n(dx + (n * g.h * g.w + p) * g.c + c0, width, 0.f);
      for_each_tap(g, n, [&](std::int64_t xo, std::int64_t yo, std::int64_t ko) {
        float* d = dx + xo + c0;
        const float* gy = dy + yo + c0;
        const float* w = k + ko + c0;
        for_lanes(width, [&](std::int64_t c, auto t) {
          store(d + c, load_as(d + c, t) + load_as(gy + c, t) * load_as(w + c, t));
        });
      });
    }
  }, 1);
}

void depthwise_conv2d_filter_grad(const Geom& g, const float* x, const float* dy, float* dk) {
  const std::int64_t taps = g.kh * g.kw, size = taps * g.c;
  const std::int64_t blocks = std::max<std::int64_t>(1, (g.n + kImagesPerBlock - 1) / kImagesPerBlock);
  const std::int64_t chunks = (g.c + kChannelsPerItem - 1) / kChannelsPerItem;
  float* partials = scratch(0, static_cast<std::size_t>(blocks * size));
  parallel_for(blocks * chunks, [&](std::int64_t i0, std::int64_t i1) {
    for (std::int64_t item = i0; item < i1; ++item) {
      const std::int64_t b = item / chunks, c0 = item % chunks * kChannelsPerItem;
      const std::int64_t width = std::min(kChannelsPerItem, g.c - c0);
      float* part = partials + b * size;
      for (std::int64_t t = 0; t < taps; ++t) std::fill_n(part + t * g.c + c0, width, 0.f);
      const std::int64_t n1 = std::min(g.n, (b + 1) * kImagesPerBlock);
      for (std::int64_t n = b * kImagesPerBlock; n < n1; ++n) {
        for_each_tap(g, n, [&](std::int64_t xo, std::int64_t yo, std::int64_t ko) {
          float* d = part + ko + c0;
          const float* xv = x + xo + c0;
          const float* gy = dy + yo + c0;
          for_lanes(width, [&](std::int64_t c, auto t) {
            store(d + c, load_as(d + c, t) + load_as(xv + c, t) * load_as(gy + c, t));
          });
        });
      }
    }
  }, 1);
  std::copy_n(partials, size, dk);
  for (std::int64_t b = 1; b < blocks; ++b) {
    const float* part = partials + b * size;
    for (std::int64_t i = 0; i < size; ++i) dk[i] += part[i];
  }
}

}  // namespace strata::cpu
