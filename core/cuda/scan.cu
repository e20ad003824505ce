// The scan CUDA kernels: cumsum and cumprod a thread per lane, in the CPU's order;
// cumprod's gradient a thread per lane in two passes over it; reverse a thread per element;
// argsort a thread per element, counting the lane's elements that sort before it.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/scan_launch.h"

namespace strata::cuda {

namespace {

template <bool Product>
__global__ void scan_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t outer, std::int64_t n,
                            std::int64_t inner, bool reverse) {
  const std::int64_t lanes = outer * inner;
  for (std::int64_t lane = first_index(); lane < lanes; lane += grid_stride()) {
    const std::int64_t o = lane / inner, i = lane - o * inner;
    float acc = Product ? 1.f : 0.f;
    for (std::int64_t step = 0; step < n; ++step) {
      const std::int64_t at = (o * n + (reverse ? n - 1 - step : step)) * inner + i;
      acc = Product ? acc * x[at] : acc + x[at];
      y[at] = acc;
    }
  }
}

__global__ void cumprod_grad_kernel(const float* __restrict__ x, const float* __restrict__ g, float* __restrict__ dx,
                                    std::int64_t outer, std::int64_t n, std::int64_t inner) {
  const std::int64_t lanes = outer * inner;
  for (std::int64_t lane = first_index(); lane < lanes; lane += grid_stride()) {
    const std::int64_t o = lane / inner, i = lane - o * inner;
    const std::int64_t first = o * n * inner + i;
    float acc = 0.f;
    for (std::int64_t k = n - 1; k >= 0; --k) {
      const float next = k + 1 < n ? x[first + (k + 1) * inner] : 0.f;
      acc = g[first + k * inner] + next * acc;
      dx[first + k * inner] = acc;
    }
    acc = 1.f;
    for (std::int64_t k = 0; k < n; ++k) {
      dx[first + k * inner] *= acc;
      acc *= x[first + k * inner];
    }
  }
}

__global__ void reverse_kernel(const float* __restrict__ x, float* __restrict__ y, std::int64_t total, std::int64_t n,
                               std::int64_t inner) {
  for (std::int64_t e = first_index(); e < total; e += grid_stride()) {
    const std::int64_t row = e / inner, i = e - row * inner;
    const std::int64_t o = row / n, k = row - o * n;
    y[(o * n + (n - 1 - k)) * inner + i] = x[e];
  }
}

// a comes before b: smaller (larger when descending), NaN the largest, as the CPU's kernel.
__device__ bool sorts_before(float a, float b, bool descending) {
  const bool nan_a = isnan(a), nan_b = isnan(b);
  if (nan_a || nan_b) return descending ? nan_a && !nan_b : !nan_a && nan_b;
  return descending ? a > b : a < b;
}

// Element k of its lane goes to its rank: the elements sorting before it, and the equal ones
// before it in the lane (a stable sort, as the CPU's std::stable_sort).
__global__ void argsort_kernel(const float* __restrict__ x, std::int32_t* __restrict__ y, std::int64_t total,
                               std::int64_t n, std::int64_t inner, bool descending) {
  for (std::int64_t e = first_index(); e < total; e += grid_stride()) {
    const std::int64_t row = e / inner, i = e - row * inner;
    const std::int64_t o = row / n, k = row - o * n;
    const std::int64_t first = o * n * inner + i;
    const float v = x[e];
    std::int64_t rank = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      const float w = x[first + j * inner];
      rank += sorts_before(w, v, descending) || (j < k && !sorts_before(v, w, descending));
    }
    y[first + rank * inner] = static_cast<std::int32_t>(k);
  }
}

}  // namespace

void launch_scan(ScanOp op, bool reverse, const float* x, float* y, std::int64_t outer, std::int64_t n,
                 std::int64_t inner, CUstream_st* stream) {
  const std::int64_t lanes = outer * inner;
  if (lanes == 0 || n == 0) return;
  if (op == ScanOp::product) {
    scan_kernel<true><<<blocks_for(lanes), kThreads, 0, stream>>>(x, y, outer, n, inner, reverse);
  } else {
    scan_kernel<false><<<blocks_for(lanes), kThreads, 0, stream>>>(x, y, outer, n, inner, reverse);
  }
}

void launch_cumprod_grad(const float* x, const float* g, float* dx, std::int64_t outer, std::int64_t n,
                         std::int64_t inner, CUstream_st* stream) {
  const std::int64_t lanes = outer * inner;
  if (lanes == 0 || n == 0) return;
  cumprod_grad_kernel<<<blocks_for(lanes), kThreads, 0, stream>>>(x, g, dx, outer, n, inner);
}

void launch_reverse(const float* x, float* y, std::int64_t outer, std::int64_t n, std::int64_t inner,
                    CUstream_st* stream) {
  const std::int64_t total = outer * n * inner;
  if (total == 0) return;
  reverse_kernel<<<blocks_for(total), kThreads, 0, stream>>>(x, y, total, n, inner);
}

void launch_argsort(const float* x, std::int32_t* y, std::int64_t outer, std::int64_t n, std::int64_t inner,
                    bool descending, CUstream_st* stream) {
  const std::int64_t total = outer * n * inner;
  if (total == 0) return;
  argsort_kernel<<<blocks_for(total), kThreads, 0, stream>>>(x, y, total, n, inner, descending);
}

}  // namespace strata::cuda
