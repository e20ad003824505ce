// Launcher of the random_normal_like CUDA kernel (core/cuda/random_normal.cu), called by
// core/cuda/random_normal_kernels.cc. Plain pointers and sizes only. Enqueues on `stream`
// and returns at once; n == 0 launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/philox.h"

struct CUstream_st;

namespace strata::cuda {

// What a random_normal_like node draws with, apart from the run's step.
struct RandomNormalNode {
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
  std::int64_t sample_size = 0;  // elements per sample (0 for a scalar or an empty batch)
};

// out[i] = element sample_offset * sample_size + i of the step's global batch
// (core/cuda/philox.h: random_normal_element) for i < n, with the key of the step. The
// step and the sample offset are read from `scalars` on the device, so a captured launch
// draws each replayed step's own numbers.
void launch_random_normal(float* out, std::int64_t n, const RandomNormalNode& node, const RunScalars* scalars,
                          CUstream_st* stream);

}  // namespace strata::cuda
