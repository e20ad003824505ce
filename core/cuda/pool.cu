// The 2-D pooling CUDA kernels (core/cuda/pool_launch.h): a thread per output element,
// NHWC, channels fastest (neighbouring threads read neighbouring channels). The forward
// kernels walk a window as the CPU kernel does; the gradients gather — each input
// element sums the windows that cover it, in the CPU's (oy, ox) order — so no atomics,
// no zero fill, and the CPU's sums in the CPU's order. Products are rounded before they
// are added (__fmul_rn: no fused multiply-add), as the CPU kernel rounds them.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/pool_launch.h"

namespace strata::cuda {

namespace {

// The in-bounds part of output cell (oy, ox)'s window: rows [y0, y1), columns [x0, x1).
struct Window {
  std::int64_t y0, y1, x0, x1;
};

__device__ inline Window window(const PoolShape& s, std::int64_t oy, std::int64_t ox) {
  const std::int64_t y0 = oy * s.sh - s.pt, x0 = ox * s.sw - s.pl;
  return {y0 > 0 ? y0 : 0, y0 + s.kh < s.h ? y0 + s.kh : s.h, x0 > 0 ? x0 : 0, x0 + s.kw < s.w ? x0 + s.kw : s.w};
}

// The output cells whose windows cover input row iy: [first, last] (empty when first > last).
__device__ inline void covering(std::int64_t i, std::int64_t k, std::int64_t stride, std::int64_t pad,
                                std::int64_t outputs, std::int64_t* first, std::int64_t* last) {
  // o covers i when o·stride − pad <= i < o·stride − pad + k.
  const std::int64_t low = i + pad - k + 1;
  *first = low <= 0 ? 0 : (low + stride - 1) / stride;
  const std::int64_t high = (i + pad) / stride;
  *last = high < outputs - 1 ? high : outputs - 1;
}

__global__ void max_pool(const float* __restrict__ x, float* __restrict__ y, PoolShape s, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t ch = i % s.c, ox = i / s.c % s.ow, oy = i / (s.c * s.ow) % s.oh, n = i / (s.c * s.ow * s.oh);
    const Window wd = window(s, oy, ox);
    float best = -__int_as_float(0x7f800000);  // -inf
    for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
      for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) {
        const float v = x[((n * s.h + iy) * s.w + ix) * s.c + ch];
        best = best < v ? v : best;  // std::max(best, v)
      }
    }
    y[i] = best;
  }
}

__global__ void avg_pool(const float* __restrict__ x, float* __restrict__ y, PoolShape s, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t ch = i % s.c, ox = i / s.c % s.ow, oy = i / (s.c * s.ow) % s.oh, n = i / (s.c * s.ow * s.oh);
    const Window wd = window(s, oy, ox);
    float sum = 0.f;
    for (std::int64_t iy = wd.y0; iy < wd.y1; ++iy) {
      for (std::int64_t ix = wd.x0; ix < wd.x1; ++ix) sum += x[((n * s.h + iy) * s.w + ix) * s.c + ch];
    }
    const float inv = 1.f / static_cast<float>((wd.y1 - wd.y0) * (wd.x1 - wd.x0));
    y[i] = __fmul_rn(sum, inv);
  }
}

__global__ void max_pool_grad(const float* __restrict__ x, const float* __restrict__ dy, float* __restrict__ dx,
                              PoolShape s, bool through_relu, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t ch = i % s.c, ix = i / s.c % s.w, iy = i / (s.c * s.w) % s.h, n = i / (s.c * s.w * s.h);
    std::int64_t oy0, oy1, ox0, ox1;
    covering(iy, s.kh, s.sh, s.pt, s.oh, &oy0, &oy1);
    covering(ix, s.kw, s.sw, s.pl, s.ow, &ox0, &ox1);
    const float* xn = x + n * s.h * s.w * s.c + ch;
    float sum = 0.f;
    for (std::int64_t oy = oy0; oy <= oy1; ++oy) {
      for (std::int64_t ox = ox0; ox <= ox1; ++ox) {
        // The window's first largest element, as the CPU finds it.
        const Window wd = window(s, oy, ox);
        float best = xn[(wd.y0 * s.w + wd.x0) * s.c];
        std::int64_t by = wd.y0, bx = wd.x0;
        for (std::int64_t y = wd.y0; y < wd.y1; ++y) {
          for (std::int64_t xx = wd.x0; xx < wd.x1; ++xx) {
            const float v = xn[(y * s.w + xx) * s.c];
            if (v > best) best = v, by = y, bx = xx;
          }
        }
        if (by == iy && bx == ix && (!through_relu || best > 0.f)) {
          sum += dy[((n * s.oh + oy) * s.ow + ox) * s.c + ch];
        }
      }
    }
    dx[i] = sum;
  }
}

__global__ void avg_pool_grad(const float* __restrict__ dy, float* __restrict__ dx, PoolShape s, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t ch = i % s.c, ix = i / s.c % s.w, iy = i / (s.c * s.w) % s.h, n = i / (s.c * s.w * s.h);
    std::int64_t oy0, oy1, ox0, ox1;
    covering(iy, s.kh, s.sh, s.pt, s.oh, &oy0, &oy1);
    covering(ix, s.kw, s.sw, s.pl, s.ow, &ox0, &ox1);
    float sum = 0.f;
    for (std::int64_t oy = oy0; oy <= oy1; ++oy) {
      for (std::int64_t ox = ox0; ox <= ox1; ++ox) {
        const Window wd = window(s, oy, ox);
        const float inv = 1.f / static_cast<float>((wd.y1 - wd.y0) * (wd.x1 - wd.x0));
        sum = __fadd_rn(sum, __fmul_rn(dy[((n * s.oh + oy) * s.ow + ox) * s.c + ch], inv));
      }
    }
    dx[i] = sum;
  }
}

}  // namespace

void launch_max_pool(const float* x, float* y, const PoolShape& s, CUstream_st* stream) {
  const std::int64_t count = s.n * s.oh * s.ow * s.c;
  if (count == 0) return;
  max_pool<<<blocks_for(count), kThreads, 0, stream>>>(x, y, s, count);
}

void launch_avg_pool(const float* x, float* y, const PoolShape& s, CUstream_st* stream) {
  const std::int64_t count = s.n * s.oh * s.ow * s.c;
  if (count == 0) return;
  avg_pool<<<blocks_for(count), kThreads, 0, stream>>>(x, y, s, count);
}

void launch_max_pool_grad(const float* x, const float* dy, float* dx, const PoolShape& s, bool through_relu,
                          CUstream_st* stream) {
  const std::int64_t count = s.n * s.h * s.w * s.c;
  if (count == 0) return;
  max_pool_grad<<<blocks_for(count), kThreads, 0, stream>>>(x, dy, dx, s, through_relu, count);
}

void launch_avg_pool_grad(const float* dy, float* dx, const PoolShape& s, CUstream_st* stream) {
  const std::int64_t count = s.n * s.h * s.w * s.c;
  if (count == 0) return;
  avg_pool_grad<<<blocks_for(count), kThreads, 0, stream>>>(dy, dx, s, count);
}

}  // namespace strata::cuda
