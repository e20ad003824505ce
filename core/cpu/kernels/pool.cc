// The CPU kernels of the 2-D pooling and upsampling ops (core/ops/pool_ops.h): direct
// loops over NHWC windows, parallel over (image, output row).
// Compiled with -ffp-contract=off (CMakeLists.txt): the pooling kernels round each product
// before adding it, as their CUDA twins do (core/cuda/pool.cu, compared bit for bit): GCC
// fuses a multiply and an add into one FMA by default in C++ (clang within a statement),
// which would round once, and only where the machine has FMA.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/op_registry.h"
#include "core/ops/pool_ops.h"

namespace strata::cpu {
namespace {

using ops::pool_geometry;
using ops::PoolGeom;

// Window bounds (clipped to the input) of output cell (oy, ox).
struct Window {
  std::int64_t y0, y1, x0, x1;
};
Window window(const PoolGeom& g, std::int64_t oy, std::int64_t ox) {
  std::int64_t y0 = oy * g.sh - g.pt, x0 = ox * g.sw - g.pl;
  return {std::max<std::int64_t>(y0, 0), std::min(y0 + g.kh, g.h), std::max<std::int64_t>(x0, 0),
          std::min(x0 + g.kw, g.w)};
}

template <typename Fn>
void for_each_output_row(const PoolGeom& g, Fn fn) {
  cpu::parallel_for(g.n * g.oh, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) fn(r / g.oh, r % g.oh);
  }, std::max<std::int64_t>(1, cpu::kParallelThreshold / std::max<std::int64_t>(1, g.ow * g.c * g.kh * g.kw)));
}

void max_pool_kernel(KernelContext& ctx) {
  PoolGeom g = pool_geometry("max_pool2d", ctx.input(0).shape(), ctx.node.attrs);
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  for_each_output_row(g, [&](std::int64_t n, std::int64_t oy) {
    for (std::int64_t ox = 0; ox < g.ow; ++ox) {
      Window wd = window(g, oy, ox);
      float* out = y + ((n * g.oh + oy) * g.ow + ox) * g.c;
      std::fill(out, out + g.c, -std::numeric_limits<float>::infinity());
      for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
        for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
          const float* in = x + ((n * g.h + iy) * g.w + ix) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) out[c] = std::max(out[c], in[c]);
        }
      }
    }
  });
}

// dx: dy routed to the first maximum of each window (row-major window order). Channels
// are the inner loop (contiguous in NHWC); the per-channel best value and index live in a
// per-thread scratch that only grows.
// This thread's per-channel running maximum and where it is (a window position or an
// input offset), for the max-pool gradient; they only grow.
template <typename Index>
std::pair<float*, Index*> argmax_buffers(std::int64_t channels) {
  thread_local std::vector<float> best;
  thread_local std::vector<Index> where;
  if (best.size() < static_cast<std::size_t>(channels)) {
    best.resize(static_cast<std::size_t>(channels));
    where.resize(static_cast<std::size_t>(channels));
  }
  return {best.data(), where.data()};
}

// Windows that tile the input (strides equal to the pool size, no padding: Keras's
// default MaxPooling2D) send each input at most one gradient. Every element of dx is then
// written exactly once, with no zero-fill and no scatter, and the argmax is branch-free
// over channels (vectorized). Same result as the general loop: the first maximum wins.
bool windows_tile(const PoolGeom& g) {
  return g.sh == g.kh && g.sw == g.kw && g.pt == 0 && g.pl == 0 && g.oh * g.sh <= g.h && g.ow * g.sw <= g.w;
}

// With kThroughRelu (max_pool2d_relu_grad), x is a relu's output: a window whose maximum
// is not positive passes no gradient (the relu's gradient there is 0), and each window's
// passed gradient is added to its thread's row of `bias_partials` (threads × channels).
template <bool kThroughRelu = false>
void max_pool_grad_tiled(const PoolGeom& g, const float* x, const float* dy, float* dx,
                         float* bias_partials = nullptr) {
  const std::int64_t covered_w = g.ow * g.sw;
  for_each_output_row(g, [&](std::int64_t n, std::int64_t oy) {
#if !defined(__AVX512F__)
    auto [best, arg] = argmax_buffers<std::int32_t>(g.c);
#endif
    float* bias_part = kThroughRelu ? bias_partials + cpu::thread_index() * g.c : nullptr;
    auto at = [&](std::int64_t iy, std::int64_t ix) { return ((n * g.h + iy) * g.w + ix) * g.c; };
    const std::int64_t y0 = oy * g.sh;
    [[maybe_unused]] const std::int64_t kh = g.kh, kw = g.kw, channels = g.c, row_stride = g.w * g.c;
    for (std::int64_t ox = 0; ox < g.ow; ++ox) {
      const std::int64_t x0 = ox * g.sw;
      const float* grad = dy + ((n * g.oh + oy) * g.ow + ox) * g.c;
#if defined(__AVX512F__)
      // The loop below, sixteen channels at a time with the same comparisons (ordered
      // "greater", so a NaN never wins, and the first maximum keeps the gradient). The
      // window's positions are walked row by row from the geometry copied into locals:
      // a position's row and column by division, and the geometry read back from memory
      // at every step (the stores to dx might alias it for all the compiler knows), had
      // made this loop 4x slower than its loads and stores.
      const float* corner = x + at(y0, x0);
      float* dx_corner = dx + at(y0, x0);
      for (std::int64_t c0 = 0; c0 < channels; c0 += 16) {
        const __mmask16 live = channels - c0 >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (channels - c0)) - 1);
        __m512 top = _mm512_maskz_loadu_ps(live, corner + c0);
        __m512i where = _mm512_setzero_si512();
        std::int32_t p = 0;
        for (std::int64_t wy = 0; wy < kh; ++wy) {
          for (std::int64_t wx = 0; wx < kw; ++wx, ++p) {
            if (p == 0) continue;
            const __m512 v = _mm512_maskz_loadu_ps(live, corner + wy * row_stride + wx * channels + c0);
            const __mmask16 greater = _mm512_cmp_ps_mask(v, top, _CMP_GT_OQ);
            top = _mm512_mask_mov_ps(top, greater, v);
            where = _mm512_mask_mov_epi32(where, greater, _mm512_set1_epi32(p));
          }
        }
        const __m512 gv = _mm512_maskz_loadu_ps(live, grad + c0);
        __mmask16 passes = live;
        if constexpr (kThroughRelu) {
          passes &= _mm512_cmp_ps_mask(top, _mm512_setzero_ps(), _CMP_GT_OQ);
          const __m512 sum = _mm512_add_ps(_mm512_maskz_loadu_ps(live, bias_part + c0), _mm512_maskz_mov_ps(passes, gv));
          _mm512_mask_storeu_ps(bias_part + c0, live, sum);
        }
        p = 0;
        for (std::int64_t wy = 0; wy < kh; ++wy) {
          for (std::int64_t wx = 0; wx < kw; ++wx, ++p) {
            const __mmask16 here = passes & _mm512_cmpeq_epi32_mask(where, _mm512_set1_epi32(p));
            _mm512_mask_storeu_ps(dx_corner + wy * row_stride + wx * channels + c0, live, _mm512_maskz_mov_ps(here, gv));
          }
        }
      }
#else
      const float* first = x + at(y0, x0);
      for (std::int64_t c = 0; c < g.c; ++c) best[c] = first[c], arg[c] = 0;
      for (std::int32_t p = 1; p < g.kh * g.kw; ++p) {
        const float* in = x + at(y0 + p / g.kw, x0 + p % g.kw);
        for (std::int64_t c = 0; c < g.c; ++c) {
          const bool greater = in[c] > best[c];
          best[c] = greater ? in[c] : best[c];
          arg[c] = greater ? p : arg[c];
        }
      }
      if constexpr (kThroughRelu) {
        for (std::int64_t c = 0; c < g.c; ++c) {
          if (!(best[c] > 0.f)) arg[c] = -1;  // no position gets the gradient
          bias_part[c] += best[c] > 0.f ? grad[c] : 0.f;
        }
      }
      for (std::int32_t p = 0; p < g.kh * g.kw; ++p) {
        float* out = dx + at(y0 + p / g.kw, x0 + p % g.kw);
        for (std::int64_t c = 0; c < g.c; ++c) out[c] = arg[c] == p ? grad[c] : 0.f;
      }
#endif
    }
    // Inputs no window covers: the columns right of the last window in these rows, and
    // (with the last output row) the rows below it.
    for (std::int64_t iy = y0; iy < y0 + g.kh; ++iy) {
      std::fill(dx + at(iy, covered_w), dx + at(iy, 0) + g.w * g.c, 0.f);
    }
    if (oy == g.oh - 1) std::fill(dx + at(y0 + g.kh, 0), dx + at(0, 0) + g.h * g.w * g.c, 0.f);
  });
}

void max_pool_grad_kernel(KernelContext& ctx) {
  const Tensor& xt = ctx.input(0);
  PoolGeom g = pool_geometry("max_pool2d_grad", xt.shape(), ctx.node.attrs);
  const float* x = xt.data<float>();
  const float* dy = ctx.input(1).data<float>();
  float* dx = ctx.output(0).data<float>();
  if (windows_tile(g)) return max_pool_grad_tiled(g, x, dy, dx);
  // Parallel over images: windows of one image may overlap, images never do.
  cpu::parallel_for(g.n, [&](std::int64_t n0, std::int64_t n1) {
    auto [best, at] = argmax_buffers<std::int64_t>(g.c);
    std::fill(dx + n0 * g.h * g.w * g.c, dx + n1 * g.h * g.w * g.c, 0.f);
    for (std::int64_t n = n0; n < n1; ++n) {
      for (std::int64_t oy = 0; oy < g.oh; ++oy) {
        for (std::int64_t ox = 0; ox < g.ow; ++ox) {
          Window wd = window(g, oy, ox);
          const std::int64_t first = ((n * g.h + wd.y0) * g.w + wd.x0) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) best[c] = x[first + c], at[c] = first + c;
          for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
            for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
              const std::int64_t base = ((n * g.h + iy) * g.w + ix) * g.c;
              for (std::int64_t c = 0; c < g.c; ++c) {
                if (x[base + c] > best[c]) best[c] = x[base + c], at[c] = base + c;
              }
            }
          }
          const float* grad = dy + ((n * g.oh + oy) * g.ow + ox) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) dx[at[c]] += grad[c];
        }
      }
    }
  }, 2);
}

void avg_pool_kernel(KernelContext& ctx) {
  PoolGeom g = pool_geometry("avg_pool2d", ctx.input(0).shape(), ctx.node.attrs);
  const float* x = ctx.input(0).data<float>();
  float* y = ctx.output(0).data<float>();
  for_each_output_row(g, [&](std::int64_t n, std::int64_t oy) {
    for (std::int64_t ox = 0; ox < g.ow; ++ox) {
      Window wd = window(g, oy, ox);
      float* out = y + ((n * g.oh + oy) * g.ow + ox) * g.c;
      std::fill(out, out + g.c, 0.f);
      for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
        for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
          const float* in = x + ((n * g.h + iy) * g.w + ix) * g.c;
          for (std::int64_t c = 0; c < g.c; ++c) out[c] += in[c];
        }
      }
      const float inv = 1.f / static_cast<float>((wd.y1 - wd.y0) * (wd.x1 - wd.x0));
      for (std::int64_t c = 0; c < g.c; ++c) out[c] *= inv;
    }
  });
}

void avg_pool_grad_kernel(KernelContext& ctx) {
  Tensor& dxt = ctx.output(0);
  PoolGeom g = pool_geometry("avg_pool2d_grad", dxt.shape(), ctx.node.attrs);
  const float* dy = ctx.input(0).data<float>();
  float* dx = dxt.data<float>();
  cpu::parallel_for(g.n, [&](std::int64_t n0, std::int64_t n1) {
    std::fill(dx + n0 * g.h * g.w * g.c, dx + n1 * g.h * g.w * g.c, 0.f);
    for (std::int64_t n = n0; n < n1; ++n) {
      for (std::int64_t oy = 0; oy < g.oh; ++oy) {
        for (std::int64_t ox = 0; ox < g.ow; ++ox) {
          Window wd = window(g, oy, ox);
          const float* grad = dy + ((n * g.oh + oy) * g.ow + ox) * g.c;
          const float inv = 1.f / static_cast<float>((wd.y1 - wd.y0) * (wd.x1 - wd.x0));
          for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
            for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
              float* d = dx + ((n * g.h + iy) * g.w + ix) * g.c;
              for (std::int64_t c = 0; c < g.c; ++c) d[c] += grad[c] * inv;
            }
          }
        }
      }
    }
  }, 2);
}

// The gradient through max pooling of a relu's output and through that relu, and the
// sum of it over (N, H, W): what a Conv2D(activation="relu") followed by MaxPooling2D
// needs for its pre-activation and bias gradients, in one pass over the activations
// instead of three (pool gradient, relu gradient, bias sum). conv2d's gradient builds it
// (core/ops/conv_ops.cc).
void max_pool_relu_grad_kernel(KernelContext& ctx) {
  const Tensor& yt = ctx.input(0);
  PoolGeom g = pool_geometry("max_pool2d_relu_grad", yt.shape(), ctx.node.attrs);
  const float* y = yt.data<float>();
  const float* dy = ctx.input(1).data<float>();
  float* dz = ctx.output(0).data<float>();
  float* db = ctx.output(1).data<float>();
  std::fill_n(db, g.c, 0.f);
  if (windows_tile(g)) {
    const int threads = cpu::num_threads();
    float* partials = cpu::scratch(0, static_cast<std::size_t>(threads * g.c));
    std::fill_n(partials, threads * g.c, 0.f);
    max_pool_grad_tiled<true>(g, y, dy, dz, partials);
    for (int t = 0; t < threads; ++t) {
      for (std::int64_t c = 0; c < g.c; ++c) db[c] += partials[t * g.c + c];
    }
    return;
  }
  // Overlapping or padded windows: the plain pool gradient, then the relu's mask and the
  // channel sums in a second pass.
  max_pool_grad_kernel(ctx);
  const std::int64_t positions = g.n * g.h * g.w;
  for (std::int64_t i = 0; i < positions; ++i) {
    for (std::int64_t c = 0; c < g.c; ++c) {
      float& v = dz[i * g.c + c];
      v = y[i * g.c + c] > 0.f ? v : 0.f;
      db[c] += v;
    }
  }
}

void upsample_nearest_kernel(KernelContext& ctx) {
  const Tensor& xt = ctx.input(0);
  const auto& s = ctx.node.attrs.get<std::vector<std::int64_t>>("size");
  const std::int64_t n = xt.shape()[0], h = xt.shape()[1], w = xt.shape()[2], c = xt.shape()[3];
  const std::int64_t oh = h * s[0], ow = w * s[1];
  const float* x = xt.data<float>();
  float* y = ctx.output(0).data<float>();
  cpu::parallel_for(n * oh, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t r = b; r < e; ++r) {
      const std::int64_t img = r / oh, oy = r % oh;
      const float* src = x + ((img * h + oy / s[0]) * w) * c;
      float* dst = y + r * ow * c;
      for (std::int64_t ox = 0; ox < ow; ++ox) std::copy_n(src + (ox / s[1]) * c, c, dst + ox * c);
    }
  }, std::max<std::int64_t>(1, cpu::kParallelThreshold / std::max<std::int64_t>(1, ow * c)));
}

}  // namespace

void register_pool_kernels(OpRegistry& r) {
  r.add_kernel("max_pool2d", DeviceType::cpu, {.run = max_pool_kernel});
  r.add_kernel("max_pool2d_grad", DeviceType::cpu, {.run = max_pool_grad_kernel});
  r.add_kernel("max_pool2d_relu_grad", DeviceType::cpu, {.run = max_pool_relu_grad_kernel});
  r.add_kernel("avg_pool2d", DeviceType::cpu, {.run = avg_pool_kernel});
  r.add_kernel("avg_pool2d_grad", DeviceType::cpu, {.run = avg_pool_grad_kernel});
  r.add_kernel("upsample_nearest2d", DeviceType::cpu, {.run = upsample_nearest_kernel});
}

}  // namespace strata::cpu
