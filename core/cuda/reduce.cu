// The reduction CUDA kernels. An output whose reduction is short gets one thread; a long
// one gets a block, whose threads take every blockDim-th element and then combine their
// partial results in shared memory. Both are deterministic: the same input gives the
// same bits on every run. argmax is a thread per output scanning its lane in order, as
// the CPU kernel does.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "core/cuda/reduce_launch.h"

namespace strata::cuda {

namespace {

constexpr int kThreads = 256;
// Reductions at least this long get a block per output.
constexpr std::int64_t kBlockReduction = 256;

struct Sum {
  __device__ static float init() { return 0.f; }
  __device__ static float combine(float acc, float x) { return acc + x; }
};
struct Max {
  __device__ static float init() { return -INFINITY; }
  // std::max(acc, x): a NaN x never replaces acc.
  __device__ static float combine(float acc, float x) { return acc < x ? x : acc; }
};

__device__ std::int64_t offset_of(std::int64_t flat, int rank, const std::int64_t* dims, const std::int64_t* strides) {
  std::int64_t offset = 0;
  for (int d = rank - 1; d >= 0; --d) {
    offset += (flat % dims[d]) * strides[d];
    flat /= dims[d];
  }
  return offset;
}

template <typename R>
__global__ void reduce_per_thread(const float* in, float* out, std::int64_t out_count, std::int64_t reduced_count,
                                  ReduceIndex index, float scale) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < out_count; o += stride) {
    const float* base = in + offset_of(o, index.kept_rank, index.kept_dims, index.kept_strides);
    float acc = R::init();
    for (std::int64_t r = 0; r < reduced_count; ++r) {
      acc = R::combine(acc, base[offset_of(r, index.reduced_rank, index.reduced_dims, index.reduced_strides)]);
    }
    out[o] = acc * scale;
  }
}

template <typename R>
__global__ void reduce_per_block(const float* in, float* out, std::int64_t out_count, std::int64_t reduced_count,
                                 ReduceIndex index, float scale) {
  __shared__ float partial[kThreads];
  for (std::int64_t o = blockIdx.x; o < out_count; o += gridDim.x) {
    const float* base = in + offset_of(o, index.kept_rank, index.kept_dims, index.kept_strides);
    float acc = R::init();
    for (std::int64_t r = threadIdx.x; r < reduced_count; r += blockDim.x) {
      acc = R::combine(acc, base[offset_of(r, index.reduced_rank, index.reduced_dims, index.reduced_strides)]);
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half) partial[threadIdx.x] = R::combine(partial[threadIdx.x], partial[threadIdx.x + half]);
      __syncthreads();
    }
    if (threadIdx.x == 0) out[o] = partial[0] * scale;
    __syncthreads();  // partial[0] is read before the next output overwrites it
  }
}

template <typename R>
void launch(const float* in, float* out, std::int64_t out_count, std::int64_t reduced_count, const ReduceIndex& index,
            float scale, CUstream_st* stream) {
  if (reduced_count >= kBlockReduction) {
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(out_count, 1 << 16));
    reduce_per_block<R><<<blocks, kThreads, 0, stream>>>(in, out, out_count, reduced_count, index, scale);
  } else {
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((out_count + kThreads - 1) / kThreads, 1 << 16));
    reduce_per_thread<R><<<blocks, kThreads, 0, stream>>>(in, out, out_count, reduced_count, index, scale);
  }
}

__global__ void expand_kernel(const float* in, float* out, std::int64_t out_count, ExpandIndex index, float scale) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < out_count; o += stride) {
    out[o] = in[offset_of(o, index.rank, index.dims, index.in_strides)] * scale;
  }
}

__global__ void argmax_kernel(const float* x, std::int64_t* out, std::int64_t lanes, std::int64_t n,
                              std::int64_t inner) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t o = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; o < lanes; o += stride) {
    std::int64_t best = 0;
    if (n > 0) {
      const float* lane = x + (o / inner) * n * inner + o % inner;
      float best_value = lane[0];
      for (std::int64_t k = 1; k < n; ++k) {
        const float v = lane[k * inner];
        if (v > best_value) {
          best = k;
          best_value = v;
        }
      }
    }
    out[o] = best;
  }
}

}  // namespace

void launch_argmax(const float* x, std::int64_t* out, std::int64_t lanes, std::int64_t n, std::int64_t inner,
                   CUstream_st* stream) {
  if (lanes == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((lanes + kThreads - 1) / kThreads, 1 << 16));
  argmax_kernel<<<blocks, kThreads, 0, stream>>>(x, out, lanes, n, inner);
}

void launch_expand(const float* in, float* out, std::int64_t out_count, const ExpandIndex& index, float scale,
                   CUstream_st* stream) {
  if (out_count == 0) return;
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((out_count + kThreads - 1) / kThreads, 1 << 16));
  expand_kernel<<<blocks, kThreads, 0, stream>>>(in, out, out_count, index, scale);
}

void launch_reduce(ReduceKind kind, const float* in, float* out, std::int64_t out_count, std::int64_t reduced_count,
                   const ReduceIndex& index, float scale, CUstream_st* stream) {
  if (out_count == 0) return;
  if (kind == ReduceKind::sum) {
    launch<Sum>(in, out, out_count, reduced_count, index, scale, stream);
  } else {
    launch<Max>(in, out, out_count, reduced_count, index, scale, stream);
  }
}

}  // namespace strata::cuda
