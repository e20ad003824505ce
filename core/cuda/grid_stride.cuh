// The launch shape every flat CUDA kernel shares (included by core/cuda/*.cu only): blocks
// of kThreads threads, enough blocks to cover n once up to a cap, and a grid-stride loop
// (first_index, then steps of grid_stride) that takes whatever the cap leaves.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace strata::cuda {

inline constexpr int kThreads = 256;

inline unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>(std::min<std::int64_t>((n + kThreads - 1) / kThreads, 1 << 16));
}

__device__ inline std::int64_t first_index() {
  return static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() { return static_cast<std::int64_t>(gridDim.x) * blockDim.x; }

}  // namespace strata::cuda
