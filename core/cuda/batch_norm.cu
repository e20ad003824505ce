// The batch normalization CUDA kernels: per-channel sums by one block a channel (each
// thread a strided share of the channel's elements, then a tree over the block's threads:
// a fixed order, so the same bits every run), and the elementwise passes a thread an
// element. Compiled with the CUDA build; checked against the CPU kernels by
// tests/core/cuda_kernels_test.cc where a GPU is present.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/batch_norm_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

// Element j (of count = outer·inner) of channel c, as a flat index of x.
__device__ inline std::int64_t element_of(const BatchNormShape& s, std::int64_t c, std::int64_t j) {
  return ((j / s.inner) * s.channels + c) * s.inner + j % s.inner;
}

// The block's values summed over its kThreads threads into sums[0] (the tree's order
// is fixed); every thread then reads the total.
__device__ inline float block_sum(float value, float* sums) {
  sums[threadIdx.x] = value;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (static_cast<int>(threadIdx.x) < half) sums[threadIdx.x] += sums[threadIdx.x + half];
    __syncthreads();
  }
  const float total = sums[0];
  __syncthreads();
  return total;
}

__global__ void statistics_kernel(const float* __restrict__ x, float* __restrict__ mean, float* __restrict__ variance,
                                  BatchNormShape s) {
  __shared__ float sums[kThreads];
  const std::int64_t c = blockIdx.x, count = s.outer * s.inner;
  const float per = count > 0 ? 1.f / static_cast<float>(count) : 1.f;
  float part = 0.f;
  for (std::int64_t j = threadIdx.x; j < count; j += kThreads) part += x[element_of(s, c, j)];
  const float m = block_sum(part, sums) * per;
  part = 0.f;
  for (std::int64_t j = threadIdx.x; j < count; j += kThreads) {
    const float d = x[element_of(s, c, j)] - m;
    part += d * d;
  }
  const float v = block_sum(part, sums) * per;
  if (threadIdx.x == 0) {
    mean[c] = m;
    variance[c] = v;
  }
}

__global__ void apply_kernel(const float* __restrict__ x, const float* __restrict__ mean,
                             const float* __restrict__ variance, const float* __restrict__ gamma,
                             const float* __restrict__ beta, float epsilon, float* __restrict__ y, BatchNormShape s,
                             std::int64_t n) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t c = i / s.inner % s.channels;
    const float scale = 1.f / sqrtf(variance[c] + epsilon) * gamma[c];
    y[i] = (x[i] - mean[c]) * scale + beta[c];
  }
}

__global__ void gradient_sums_kernel(const float* __restrict__ dy, const float* __restrict__ x,
                                     const float* __restrict__ mean, const float* __restrict__ variance, float epsilon,
                                     float* __restrict__ dgamma, float* __restrict__ dbeta, BatchNormShape s) {
  __shared__ float sums[kThreads];
  const std::int64_t c = blockIdx.x, count = s.outer * s.inner;
  float part_dy = 0.f, part_dy_centered = 0.f;
  for (std::int64_t j = threadIdx.x; j < count; j += kThreads) {
    const std::int64_t i = element_of(s, c, j);
    part_dy += dy[i];
    part_dy_centered += dy[i] * (x[i] - mean[c]);
  }
  const float sum_dy = block_sum(part_dy, sums);
  const float sum_dy_centered = block_sum(part_dy_centered, sums);
  if (threadIdx.x == 0) {
    dbeta[c] = sum_dy;
    dgamma[c] = sum_dy_centered * (1.f / sqrtf(variance[c] + epsilon));
  }
}

__global__ void gradient_apply_kernel(const float* __restrict__ dy, const float* __restrict__ x,
                                      const float* __restrict__ gamma, const float* __restrict__ mean,
                                      const float* __restrict__ variance, const float* __restrict__ dmean,
                                      const float* __restrict__ dvariance, const float* __restrict__ dgamma,
                                      const float* __restrict__ dbeta, float epsilon, bool training,
                                      float* __restrict__ dx, BatchNormShape s, std::int64_t n) {
  const std::int64_t count = s.outer * s.inner;
  const float per = count > 0 ? 1.f / static_cast<float>(count) : 0.f;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t c = i / s.inner % s.channels;
    const float r = 1.f / sqrtf(variance[c] + epsilon);
    float value = gamma[c] * r * dy[i];
    if (training) {
      // dgamma is Σ dy·(x − mean)·r, so γr³·Σ dy·(x − mean) = γr²·dgamma.
      const float b = -gamma[c] * r * r * dgamma[c] * per + 2.f * dvariance[c] * per;
      const float shift = -gamma[c] * r * dbeta[c] * per + dmean[c] * per;
      value += b * (x[i] - mean[c]) + shift;
    }
    dx[i] = value;
  }
}

}  // namespace

void launch_batch_norm_statistics(const float* x, float* mean, float* variance, const BatchNormShape& s,
                                  CUstream_st* stream) {
  if (s.channels == 0) return;
  statistics_kernel<<<static_cast<unsigned>(s.channels), kThreads, 0, stream>>>(x, mean, variance, s);
}

void launch_batch_norm_apply(const float* x, const float* mean, const float* variance, const float* gamma,
                             const float* beta, float epsilon, float* y, const BatchNormShape& s, CUstream_st* stream) {
  const std::int64_t n = s.outer * s.channels * s.inner;
  if (n == 0) return;
  apply_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, mean, variance, gamma, beta, epsilon, y, s, n);
}

void launch_batch_norm_gradient(const float* dy, const float* x, const float* gamma, const float* mean,
                                const float* variance, const float* dmean, const float* dvariance, float epsilon,
                                bool training, float* dx, float* dgamma, float* dbeta, const BatchNormShape& s,
                                CUstream_st* stream) {
  if (s.channels == 0) return;
  gradient_sums_kernel<<<static_cast<unsigned>(s.channels), kThreads, 0, stream>>>(dy, x, mean, variance, epsilon,
                                                                                   dgamma, dbeta, s);
  const std::int64_t n = s.outer * s.channels * s.inner;
  if (n == 0) return;
  gradient_apply_kernel<<<blocks_for(n), kThreads, 0, stream>>>(dy, x, gamma, mean, variance, dmean, dvariance, dgamma,
                                                                dbeta, epsilon, training, dx, s, n);
}

}  // namespace strata::cuda
