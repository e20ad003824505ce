// The sequence CUDA kernels: concat_last, split_last and repeat_vector, each a
// grid-stride copy with a thread per element (of the output, or for split_last of the
// input, each of whose elements goes to exactly one output).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/sequence_launch.h"

namespace strata::cuda {

namespace {

__global__ void concat_last_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ out,
                                   std::int64_t rows, std::int64_t a_cols, std::int64_t b_cols) {
  const std::int64_t cols = a_cols + b_cols, n = rows * cols;
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t r = o / cols, c = o - r * cols;
    out[o] = c < a_cols ? a[r * a_cols + c] : b[r * b_cols + (c - a_cols)];
  }
}

__global__ void split_last_kernel(const float* __restrict__ g, float* __restrict__ a, float* __restrict__ b,
                                  std::int64_t rows, std::int64_t a_cols, std::int64_t b_cols) {
  const std::int64_t cols = a_cols + b_cols, n = rows * cols;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t r = i / cols, c = i - r * cols;
    if (c < a_cols) {
      a[r * a_cols + c] = g[i];
    } else {
      b[r * b_cols + (c - a_cols)] = g[i];
    }
  }
}

__global__ void repeat_vector_kernel(const float* __restrict__ x, float* __restrict__ out, std::int64_t batch,
                                     std::int64_t times, std::int64_t features) {
  const std::int64_t n = batch * times * features;
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t f = o % features, row = o / (times * features);
    out[o] = x[row * features + f];
  }
}

}  // namespace

void launch_concat_last(const float* a, const float* b, float* out, std::int64_t rows, std::int64_t a_cols,
                        std::int64_t b_cols, CUstream_st* stream) {
  const std::int64_t n = rows * (a_cols + b_cols);
  if (n == 0) return;
  concat_last_kernel<<<blocks_for(n), kThreads, 0, stream>>>(a, b, out, rows, a_cols, b_cols);
}

void launch_split_last(const float* g, float* a, float* b, std::int64_t rows, std::int64_t a_cols,
                       std::int64_t b_cols, CUstream_st* stream) {
  const std::int64_t n = rows * (a_cols + b_cols);
  if (n == 0) return;
  split_last_kernel<<<blocks_for(n), kThreads, 0, stream>>>(g, a, b, rows, a_cols, b_cols);
}

void launch_repeat_vector(const float* x, float* out, std::int64_t batch, std::int64_t times, std::int64_t features,
                          CUstream_st* stream) {
  const std::int64_t n = batch * times * features;
  if (n == 0) return;
  repeat_vector_kernel<<<blocks_for(n), kThreads, 0, stream>>>(x, out, batch, times, features);
}

}  // namespace strata::cuda
