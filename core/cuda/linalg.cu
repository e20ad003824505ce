// The linear-algebra CUDA kernels (core/ops/linalg_ops.h; the CPU's, on Eigen, are in
// core/cpu/kernels/linalg.cc): a thread per matrix, the same pivoting rule as LAPACK's and
// Eigen's partial pivoting (the largest magnitude in the column, the first of equals); and
// qr (core/ops/matrix_decompositions.h) with Eigen's reflections.
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

// Householder QR as Eigen's HouseholderQR (the CPU kernel's, core/cpu/kernels/
// matrix_decompositions.cc): for each column k < min(m, n), the reflection I − tau v v^T with
// v = (1, x_tail / (x0 − beta)) makes the pivot beta = −sign(x0)·‖x‖ (x0 ≥ 0 counts as +),
// none (tau 0, beta x0) where the column below the pivot is 0. w holds a's copy, reduced in
// place with the reflections' tails below the diagonal, then tau per column; q is the
// reflections applied to the identity's first q_cols columns, r w's first r_rows rows'
// upper triangle.
__global__ void qr_kernel(const float* __restrict__ a, float* __restrict__ q, float* __restrict__ r,
                          float* __restrict__ work, std::int64_t count, std::int64_t m, std::int64_t n,
                          std::int64_t q_cols, std::int64_t r_rows) {
  const std::int64_t k = m < n ? m : n;
  for (std::int64_t t = first_index(); t < count; t += grid_stride()) {
    float* w = work + t * (m * n + k);
    float* tau = w + m * n;
    for (std::int64_t i = 0; i < m * n; ++i) w[i] = a[t * m * n + i];
    for (std::int64_t c = 0; c < k; ++c) {
      float tail = 0.f;
      for (std::int64_t i = c + 1; i < m; ++i) tail += w[i * n + c] * w[i * n + c];
      const float x0 = w[c * n + c];
      if (tail <= 1.17549435e-38f) {  // FLT_MIN, Eigen's threshold: nothing to reflect
        tau[c] = 0.f;
        continue;
      }
      float beta = sqrtf(x0 * x0 + tail);
      if (x0 >= 0.f) beta = -beta;
      for (std::int64_t i = c + 1; i < m; ++i) w[i * n + c] /= x0 - beta;
      tau[c] = (beta - x0) / beta;
      w[c * n + c] = beta;
      for (std::int64_t j = c + 1; j < n; ++j) {
        float d = w[c * n + j];
        for (std::int64_t i = c + 1; i < m; ++i) d += w[i * n + c] * w[i * n + j];
        d *= tau[c];
        w[c * n + j] -= d;
        for (std::int64_t i = c + 1; i < m; ++i) w[i * n + j] -= d * w[i * n + c];
      }
    }
    float* r_t = r + t * r_rows * n;
    for (std::int64_t i = 0; i < r_rows; ++i)
      for (std::int64_t j = 0; j < n; ++j) r_t[i * n + j] = j >= i ? w[i * n + j] : 0.f;
    float* q_t = q + t * m * q_cols;
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < q_cols; ++j) q_t[i * q_cols + j] = i == j ? 1.f : 0.f;
    for (std::int64_t c = k - 1; c >= 0; --c) {  // q = H_0 · · · H_{k−1} · I
      if (tau[c] == 0.f) continue;
      for (std::int64_t j = 0; j < q_cols; ++j) {
        float d = q_t[c * q_cols + j];
        for (std::int64_t i = c + 1; i < m; ++i) d += w[i * n + c] * q_t[i * q_cols + j];
        d *= tau[c];
        q_t[c * q_cols + j] -= d;
        for (std::int64_t i = c + 1; i < m; ++i) q_t[i * q_cols + j] -= d * w[i * n + c];
      }
    }
  }
}

}  // namespace

void launch_qr(const float* a, float* q, float* r, float* work, std::int64_t count, std::int64_t m, std::int64_t n,
               bool full_matrices, CUstream_st* stream) {
  if (count == 0 || m == 0 || n == 0) return;
  const std::int64_t k = m < n ? m : n;
  qr_kernel<<<blocks_for(count), kThreads, 0, stream>>>(a, q, r, work, count, m, n, full_matrices ? m : k,
                                                        full_matrices ? m : k);
}

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
