// The all-reduce ops' CUDA kernels: a thread per element, the CPU kernel's arithmetic
// (core/cpu/kernels/collective.cc) so that both devices send and receive the same bits.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/collective_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

__global__ void pack_scaled_kernel(const float* __restrict__ in, float* __restrict__ out, std::int64_t n,
                                   float samples) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = samples == 0.f ? 0.f : in[i] * samples;
}

__global__ void store_kernel(float* at, float value) { *at = value; }

__global__ void unpack_scaled_kernel(const float* __restrict__ flat, float* __restrict__ out, std::int64_t n,
                                     const float* __restrict__ samples) {
  const float count = *samples;
  const float scale = count > 0.f ? 1.f / count : 0.f;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) out[i] = flat[i] * scale;
}

}  // namespace

void launch_pack_scaled(const float* in, float* out, std::int64_t n, float samples, CUstream_st* stream) {
  if (n == 0) return;
  pack_scaled_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, out, n, samples);
}

void launch_store(float* at, float value, CUstream_st* stream) { store_kernel<<<1, 1, 0, stream>>>(at, value); }

void launch_unpack_scaled(const float* flat, float* out, std::int64_t n, const float* samples, CUstream_st* stream) {
  if (n == 0) return;
  unpack_scaled_kernel<<<blocks_for(n), kThreads, 0, stream>>>(flat, out, n, samples);
}

}  // namespace strata::cuda
