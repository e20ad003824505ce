// What the CPU's own convolution kernels (Winograd, the direct first-layer kernel) are
// tested against: the convolution summed in double, then the epilogue in float as
// cpu::apply_epilogue applies it, and the largest difference over the largest output.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "core/cpu/epilogue.h"
#include "core/ops/conv_ops.h"
#include "core/rng.h"

namespace strata::testing {

// n floats uniform in [-1, 1), a pure function of the seed.
inline std::vector<float> random_values(std::int64_t n, std::uint64_t seed) {
  Philox rng(seed, 5);
  std::vector<float> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    v[static_cast<std::size_t>(i)] = rng.uniform(static_cast<std::uint64_t>(i)) * 2.f - 1.f;
  }
  return v;
}

// y = conv(x, k) over g (NHWC, kernel HWIO, one group; any window, stride, dilation and
// padding), summed in double, then bias, residual and the activation in float.
inline std::vector<float> conv_in_double(const ops::Conv2DGeometry& g, const std::vector<float>& x,
                                         const std::vector<float>& k, const cpu::Epilogue& e) {
  std::vector<float> y(static_cast<std::size_t>(g.n * g.oh * g.ow * g.o));
  for (std::int64_t n = 0; n < g.n; ++n)
    for (std::int64_t oy = 0; oy < g.oh; ++oy)
      for (std::int64_t ox = 0; ox < g.ow; ++ox)
        for (std::int64_t o = 0; o < g.o; ++o) {
          double sum = 0;
          for (std::int64_t ky = 0; ky < g.kh; ++ky)
            for (std::int64_t kx = 0; kx < g.kw; ++kx) {
              const std::int64_t iy = oy * g.sh + ky * g.dh - g.pt, ix = ox * g.sw + kx * g.dw - g.pl;
              if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) continue;
              for (std::int64_t c = 0; c < g.c; ++c) {
                sum += static_cast<double>(x[static_cast<std::size_t>(((n * g.h + iy) * g.w + ix) * g.c + c)]) *
                       k[static_cast<std::size_t>(((ky * g.kw + kx) * g.c + c) * g.o + o)];
              }
            }
          const std::int64_t pixel = (n * g.oh + oy) * g.ow + ox;
          float v = static_cast<float>(sum);
          if (e.bias) v += e.bias[o];
          if (e.residual) v += e.residual[pixel * e.residual_ld + o];
          if (e.activation == cpu::Activation::kSilu) v = v / (1.f + std::exp(-v));
          y[static_cast<std::size_t>(pixel * g.o + o)] = cpu::apply_clamp(e.activation, v);
        }
  return y;
}

// The largest difference from `want`, over the largest |want|.
inline double relative_error(const std::vector<float>& got, const std::vector<float>& want) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    diff = std::max(diff, std::abs(static_cast<double>(got[i]) - want[i]));
    scale = std::max(scale, std::abs(static_cast<double>(want[i])));
  }
  return diff / std::max(scale, 1e-30);
}

}  // namespace strata::testing
