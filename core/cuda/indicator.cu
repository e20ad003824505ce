// The indicator CUDA kernels: one_hot and causal_mask, a thread per output element each
// (no zero fill first, no write shared by two threads).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/class_label.cuh"
#include "core/cuda/element_dispatch.cuh"
#include "core/cuda/grid_stride.cuh"
#include "core/cuda/indicator_launch.h"

namespace strata::cuda {

namespace {

template <typename L>
__global__ void one_hot_kernel(const L* __restrict__ labels, float* __restrict__ out, std::int64_t n,
                               std::int64_t classes) {
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t row = o / classes;
    out[o] = class_of(labels[row], classes) == o - row * classes ? 1.f : 0.f;  // -1 (no class) matches no column
  }
}

__global__ void causal_mask_kernel(float* __restrict__ out, std::int64_t rows, std::int64_t cols) {
  const std::int64_t n = rows * cols;
  for (std::int64_t o = first_index(); o < n; o += grid_stride()) {
    const std::int64_t i = o / cols, j = o - i * cols;
    out[o] = i >= j ? 1.f : 0.f;
  }
}

}  // namespace

void launch_one_hot(const void* labels, ElementType label_type, float* out, std::int64_t rows, std::int64_t classes,
                    CUstream_st* stream) {
  const std::int64_t n = rows * classes;
  if (n == 0) return;
  with_elements(labels, label_type, [&](const auto* typed) {
    one_hot_kernel<<<blocks_for(n), kThreads, 0, stream>>>(typed, out, n, classes);
  });
}

void launch_causal_mask(float* out, std::int64_t rows, std::int64_t cols, CUstream_st* stream) {
  const std::int64_t n = rows * cols;
  if (n == 0) return;
  causal_mask_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, rows, cols);
}

}  // namespace strata::cuda
