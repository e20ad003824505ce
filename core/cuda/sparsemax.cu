// The sparsemax CUDA kernels (core/cuda/softmax_launch.h): a block per lane along the
// axis, Keras's threshold computed as the CPU kernel computes it (core/cpu/kernels/nn.cc).
//
// The CPU sorts each lane descending (a stable sort) and walks it once. Here no sort is
// materialized: each element's place in that order is counted instead. Element i's rank
// r_i is the number of elements before it in the stable descending order (larger, or
// equal and at a smaller index), and the cumulative sum at its place, c_i, is its value
// plus theirs. That is all the CPU's walk reads at position r_i, so the support test
// z - (c - 1) / (r + 1) > 0, the count k and the sum of the supporting c are the CPU's,
// each element deciding its own test. Counting costs n reads per element (n² per lane,
// spread over the block's threads): nothing for a classifier's tens or hundreds of
// classes, the slow case for lanes of many thousands.
//
// The sums are in double, as on the CPU. Its cumulative sums add floats in sorted order,
// ours in index order: a double holds a sum of float32 values exactly unless their
// magnitudes span more than about 29 binary orders, so c is the CPU's bit for bit for
// ordinary inputs; the sum of the c's (and the gradient's masked sum) may round in another
// order, far below float32's precision. A lane holding NaN has no order, on either device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/softmax_launch.h"

namespace strata::cuda {

namespace {

// The block's running sums, reduced by a shared-memory tree in a fixed order (so a lane
// gives the same result in every run).
struct BlockSums {
  double sum[kThreads];
  long long count[kThreads];
};

// Adds every thread's (sum, count) into slot 0; every thread then reads the totals.
// Starts and ends with a barrier, so the slots may be reused for the next reduction.
__device__ void reduce_block(BlockSums& shared, double& sum, long long& count) {
  const int t = static_cast<int>(threadIdx.x);
  __syncthreads();
  shared.sum[t] = sum;
  shared.count[t] = count;
  __syncthreads();
  for (int half = kThreads / 2; half > 0; half /= 2) {
    if (t < half) {
      shared.sum[t] += shared.sum[t + half];
      shared.count[t] += shared.count[t + half];
    }
    __syncthreads();
  }
  sum = shared.sum[0];
  count = shared.count[0];
  __syncthreads();
}

struct Place {
  std::int64_t rank = 0;    // elements before this one in the stable descending order
  double cumulative = 0.0;  // the sum of this element and those before it
};

__device__ Place place_of(const float* xl, std::int64_t n, std::int64_t inner, std::int64_t i) {
  const float xi = xl[i * inner];
  Place p;
  p.cumulative = xi;
  for (std::int64_t j = 0; j < n; ++j) {
    const float xj = xl[j * inner];
    if (xj > xi || (xj == xi && j < i)) {
      ++p.rank;
      p.cumulative += xj;
    }
  }
  return p;
}

struct Threshold {
  float tau = 0.f;
  std::int64_t k = 1;  // the support's size (at least 1, as on the CPU)
};

// Keras's tau for the lane: (sum of c over the support - 1) / k.
__device__ Threshold threshold_of(BlockSums& shared, const float* xl, std::int64_t n, std::int64_t inner) {
  double sum_of_cumulative = 0.0;
  long long k = 0;
  for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const Place p = place_of(xl, n, inner, i);
    const double z = xl[i * inner];
    if (z - (p.cumulative - 1.0) / static_cast<double>(p.rank + 1) > 0.0) {
      ++k;
      sum_of_cumulative += p.cumulative;
    }
  }
  reduce_block(shared, sum_of_cumulative, k);
  Threshold th;
  th.k = k > 0 ? k : 1;
  th.tau = static_cast<float>((sum_of_cumulative - 1.0) / static_cast<double>(th.k));
  return th;
}

__device__ inline std::int64_t lane_start(std::int64_t lane, const LaneShape& s) {
  return (lane / s.inner) * s.n * s.inner + lane % s.inner;
}

__global__ void sparsemax_kernel(const float* x, float* y, LaneShape s) {
  __shared__ BlockSums shared;
  for (std::int64_t lane = blockIdx.x; lane < s.lanes; lane += gridDim.x) {
    const std::int64_t start = lane_start(lane, s);
    const Threshold th = threshold_of(shared, x + start, s.n, s.inner);
    for (std::int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const float v = x[start + i * s.inner] - th.tau;
      y[start + i * s.inner] = v < 0.f ? 0.f : v;  // std::max(v, 0.f): a NaN stays NaN
    }
  }
}

// dx_i = m_i g_i - (k - r_i) / k * sum_j m_j g_j for the k elements first in the order
// (r_i < k), m_i = [x_i - tau >= 0]: the CPU's expression, in its float and double steps.
__global__ void sparsemax_grad_kernel(const float* g, const float* x, float* dx, LaneShape s) {
  __shared__ BlockSums shared;
  for (std::int64_t lane = blockIdx.x; lane < s.lanes; lane += gridDim.x) {
    const std::int64_t start = lane_start(lane, s);
    const float* xl = x + start;
    const Threshold th = threshold_of(shared, xl, s.n, s.inner);
    double masked_sum = 0.0;
    long long unused = 0;
    for (std::int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      if (xl[i * s.inner] - th.tau >= 0.f) masked_sum += g[start + i * s.inner];
    }
    reduce_block(shared, masked_sum, unused);
    for (std::int64_t i = threadIdx.x; i < s.n; i += blockDim.x) {
      const std::int64_t at = start + i * s.inner;
      float d = x[at] - th.tau >= 0.f ? g[at] : 0.f;
      const std::int64_t rank = place_of(xl, s.n, s.inner, i).rank;
      if (rank < th.k) {
        const double dtau = static_cast<double>(th.k - rank) / static_cast<double>(th.k);
        d -= static_cast<float>(dtau * masked_sum);
      }
      dx[at] = d;
    }
  }
}

unsigned blocks_for_lanes(std::int64_t lanes) {
  return static_cast<unsigned>(std::min<std::int64_t>(lanes, 1 << 16));
}

}  // namespace

void launch_sparsemax(const float* x, float* y, const LaneShape& shape, CUstream_st* stream) {
  if (shape.lanes == 0 || shape.n == 0) return;
  sparsemax_kernel<<<blocks_for_lanes(shape.lanes), kThreads, 0, stream>>>(x, y, shape);
}

void launch_sparsemax_grad(const float* g, const float* x, float* dx, const LaneShape& shape, CUstream_st* stream) {
  if (shape.lanes == 0 || shape.n == 0) return;
  sparsemax_grad_kernel<<<blocks_for_lanes(shape.lanes), kThreads, 0, stream>>>(g, x, dx, shape);
}

}  // namespace strata::cuda
