// The softmax CUDA kernels: a warp (32 threads) per lane along the axis, so that a
// classifier's short rows (tens of classes) keep every thread of a warp busy and a long
// row is read by 32 threads at once. The lane's max and sum are combined across the warp
// by shuffles; every thread of the warp ends with the same value (IEEE addition is
// commutative, and a butterfly adds the same pairs on each side). The arithmetic is the
// CPU kernel's (core/cpu/kernels/nn.cc): the max subtracted before exp, a softmax scaled
// by 1 / sum, a log_softmax as (x - max) - log(sum).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/softmax_launch.h"

namespace strata::cuda {

namespace {

constexpr int kWarp = 32;
constexpr unsigned kFullMask = 0xffffffffu;
static_assert(kThreads % kWarp == 0, "a block must hold whole warps");

// std::max(a, b): b replaces a only when a < b (a NaN never replaces a number).
__device__ inline float max_of(float a, float b) { return a < b ? b : a; }

__device__ inline float warp_max(float v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v = max_of(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

__device__ inline float warp_sum(float v) {
  for (int offset = kWarp / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

// The lanes this warp takes: the first, and the step to the next. Every thread of a warp
// has the same lane, so the loops below (and their shuffles) are uniform across it.
__device__ inline std::int64_t first_lane() {
  return (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
}
__device__ inline std::int64_t lane_stride() { return static_cast<std::int64_t>(gridDim.x) * (blockDim.x / kWarp); }

__device__ inline std::int64_t lane_start(std::int64_t lane, const LaneShape& s) {
  return (lane / s.inner) * s.n * s.inner + lane % s.inner;
}

template <bool kLogSpace>
__global__ void softmax_kernel(const float* x, float* y, LaneShape s) {
  const int t = static_cast<int>(threadIdx.x % kWarp);
  for (std::int64_t lane = first_lane(); lane < s.lanes; lane += lane_stride()) {
    const float* xl = x + lane_start(lane, s);
    float* yl = y + lane_start(lane, s);
    float mx = -INFINITY;
    for (std::int64_t k = t; k < s.n; k += kWarp) mx = max_of(mx, xl[k * s.inner]);
    mx = warp_max(mx);
    float sum = 0.f;
    for (std::int64_t k = t; k < s.n; k += kWarp) {
      const float e = expf(xl[k * s.inner] - mx);
      if (!kLogSpace) yl[k * s.inner] = e;
      sum += e;
    }
    sum = warp_sum(sum);
    if (kLogSpace) {
      const float log_sum = logf(sum);
      for (std::int64_t k = t; k < s.n; k += kWarp) yl[k * s.inner] = (xl[k * s.inner] - mx) - log_sum;
    } else {
      const float inv = 1.f / sum;
      for (std::int64_t k = t; k < s.n; k += kWarp) yl[k * s.inner] *= inv;  // this thread's own e
    }
  }
}

__global__ void softmax_grad_kernel(const float* g, const float* y, float* out, LaneShape s) {
  const int t = static_cast<int>(threadIdx.x % kWarp);
  for (std::int64_t lane = first_lane(); lane < s.lanes; lane += lane_stride()) {
    const std::int64_t start = lane_start(lane, s);
    const float* gl = g + start;
    const float* yl = y + start;
    float dot = 0.f;
    for (std::int64_t k = t; k < s.n; k += kWarp) dot += gl[k * s.inner] * yl[k * s.inner];
    dot = warp_sum(dot);
    for (std::int64_t k = t; k < s.n; k += kWarp) out[start + k * s.inner] = yl[k * s.inner] * (gl[k * s.inner] - dot);
  }
}

unsigned blocks_for_lanes(std::int64_t lanes) {
  constexpr std::int64_t kLanesPerBlock = kThreads / kWarp;
  return static_cast<unsigned>(std::min<std::int64_t>((lanes + kLanesPerBlock - 1) / kLanesPerBlock, 1 << 16));
}

}  // namespace

void launch_softmax(const float* x, float* y, const LaneShape& shape, bool log_space, CUstream_st* stream) {
  if (shape.lanes == 0 || shape.n == 0) return;
  if (log_space) {
    softmax_kernel<true><<<blocks_for_lanes(shape.lanes), kThreads, 0, stream>>>(x, y, shape);
  } else {
    softmax_kernel<false><<<blocks_for_lanes(shape.lanes), kThreads, 0, stream>>>(x, y, shape);
  }
}

void launch_softmax_grad(const float* g, const float* y, float* out, const LaneShape& shape, CUstream_st* stream) {
  if (shape.lanes == 0 || shape.n == 0) return;
  softmax_grad_kernel<<<blocks_for_lanes(shape.lanes), kThreads, 0, stream>>>(g, y, out, shape);
}

}  // namespace strata::cuda
