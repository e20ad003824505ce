// The random_uniform_rows CUDA kernel: a thread per element, each drawing word 0 of its
// own Philox block with the CPU's numbering (core/cpu/kernels/random.cc).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/random_uniform_launch.h"

namespace strata::cuda {

namespace {

__global__ void random_uniform_kernel(float* out, std::int64_t n, RandomUniformNode node, const RunScalars* scalars) {
  const RunScalars run = *scalars;
  const std::uint64_t key = mix_seed_bits(node.seed, static_cast<std::uint64_t>(run.step));
  const std::int64_t first = node.per_sample ? run.sample_offset * node.columns : 0;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const PhiloxWords words = philox4x32_10(static_cast<std::uint64_t>(first + i), node.stream, key);
    out[i] = philox_uniform(words.w[0]);
  }
}

}  // namespace

void launch_random_uniform(float* out, std::int64_t n, const RandomUniformNode& node, const RunScalars* scalars,
                           CUstream_st* stream) {
  if (n == 0) return;
  random_uniform_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, n, node, scalars);
}

}  // namespace strata::cuda
