// The random_normal_like CUDA kernel: a thread per element, each drawing its own Philox
// block with the CPU's numbering and Box-Muller (core/cuda/philox.h), so the numbers are
// the CPU's to within the rounding of CUDA's double log and cos.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/random_normal_launch.h"

namespace strata::cuda {

namespace {

__global__ void random_normal_kernel(float* out, std::int64_t n, RandomNormalNode node, const RunScalars* scalars) {
  const RunScalars run = *scalars;
  const std::uint64_t key = mix_seed_bits(node.seed, static_cast<std::uint64_t>(run.step));
  const std::int64_t first = run.sample_offset * node.sample_size;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    out[i] = random_normal_element(key, node.stream, first + i);
  }
}

}  // namespace

void launch_random_normal(float* out, std::int64_t n, const RandomNormalNode& node, const RunScalars* scalars,
                          CUstream_st* stream) {
  if (n == 0) return;
  random_normal_kernel<<<blocks_for(n), kThreads, 0, stream>>>(out, n, node, scalars);
}

}  // namespace strata::cuda
