// The linear-algebra CUDA kernels (core/ops/linalg_ops.h; the CPU's, on Eigen, are in
// core/cpu/kernels/linalg.cc): a thread per matrix, the same pivoting rule as LAPACK's and
// Eigen's partial pivoting (the largest magnitude in the column, the first of equals).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/linalg_launch.h"

namespace strata::cuda {

namespace {

__device__ void swap_rows(float* m, std::int64_t n, std::int64_t r1, std::int64_t r2) {
  for (std::int64_t c = 0; c < n; ++c) {
    const float t = m[r1 * n + c];
    m[r1 * n + c] = m[r2 * n + c];
    m[r2 * n + c] = t;
  }
}

// The row at or below `k` whose column-k element is largest in magnitude.
__device__ std::int64_t pivot_row(const float* w, std::int64_t n, std::int64_t k) {
  std::int64_t p = k;
  for (std::int64_t r = k + 1; r < n; ++r)
    if (fabsf(w[r * n + k]) > fabsf(w[p * n + k])) p = r;
  return p;
}

__global__ void matrix_inverse_kernel(const float* __restrict__ a, float* __restrict__ y, float* __restrict__ work,
                                      std::int64_t count, std::int64_t n) {
  for (std::int64_t m = first_index(); m < count; m += grid_stride()) {
    float* w = work + m * n * n;
    float* inv = y + m * n * n;
    for (std::int64_t i = 0; i < n * n; ++i) {
      w[i] = a[m * n * n + i];
      inv[i] = i / n == i % n ? 1.f : 0.f;
    }
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t p = pivot_row(w, n, k);
      if (p != k) {
        swap_rows(w, n, p, k);
        swap_rows(inv, n, p, k);
      }
      const float scale = 1.f / w[k * n + k];  // inf for a singular matrix: inf and NaN follow, as on the CPU
      for (std::int64_t c = 0; c < n; ++c) {
        w[k * n + c] *= scale;
        inv[k * n + c] *= scale;
      }
      for (std::int64_t r = 0; r < n; ++r) {
        if (r == k) continue;
        const float f = w[r * n + k];
        if (f == 0.f) continue;
        for (std::int64_t c = 0; c < n; ++c) {
          w[r * n + c] -= f * w[k * n + c];
          inv[r * n + c] -= f * inv[k * n + c];
        }
      }
    }
  }
}

__global__ void matrix_determinant_kernel(const float* __restrict__ a, float* __restrict__ y,
                                          float* __restrict__ work, std::int64_t count, std::int64_t n) {
  for (std::int64_t m = first_index(); m < count; m += grid_stride()) {
    float* w = work + m * n * n;
    for (std::int64_t i = 0; i < n * n; ++i) w[i] = a[m * n * n + i];
    float det = 1.f;
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t p = pivot_row(w, n, k);
      if (p != k) {
        swap_rows(w, n, p, k);
        det = -det;
      }
      const float pivot = w[k * n + k];
      det *= pivot;
      if (pivot == 0.f) break;  // singular: 0
      for (std::int64_t r = k + 1; r < n; ++r) {
        const float f = w[r * n + k] / pivot;
        for (std::int64_t c = k + 1; c < n; ++c) w[r * n + c] -= f * w[k * n + c];
      }
    }
    y[m] = det;
  }
}

__global__ void cholesky_kernel(const float* __restrict__ a, float* __restrict__ y, std::int64_t count,
                                std::int64_t n) {
  for (std::int64_t m = first_index(); m < count; m += grid_stride()) {
    const float* in = a + m * n * n;
    float* l = y + m * n * n;
    bool definite = true;
    for (std::int64_t i = 0; i < n && definite; ++i) {
      for (std::int64_t j = 0; j <= i; ++j) {
        float s = in[i * n + j];
        for (std::int64_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
        if (i == j) {
          if (!(s > 0.f)) {
            definite = false;
            break;
          }
          l[i * n + i] = sqrtf(s);
        } else {
          l[i * n + j] = s / l[j * n + j];
        }
      }
      for (std::int64_t j = i + 1; j < n; ++j) l[i * n + j] = 0.f;
    }
    if (!definite)
      for (std::int64_t i = 0; i < n * n; ++i) l[i] = nanf("");
  }
}

}  // namespace

void launch_matrix_inverse(const float* a, float* y, float* work, std::int64_t count, std::int64_t n,
                           CUstream_st* stream) {
  if (count == 0 || n == 0) return;
  matrix_inverse_kernel<<<blocks_for(count), kThreads, 0, stream>>>(a, y, work, count, n);
}

void launch_matrix_determinant(const float* a, float* y, float* work, std::int64_t count, std::int64_t n,
                               CUstream_st* stream) {
  if (count == 0) return;
  matrix_determinant_kernel<<<blocks_for(count), kThreads, 0, stream>>>(a, y, work, count, n);
}

void launch_cholesky(const float* a, float* y, std::int64_t count, std::int64_t n, CUstream_st* stream) {
  if (count == 0 || n == 0) return;
  cholesky_kernel<<<blocks_for(count), kThreads, 0, stream>>>(a, y, count, n);
}

}  // namespace strata::cuda
