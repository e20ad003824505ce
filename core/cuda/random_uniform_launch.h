// Launcher of the random_uniform_rows CUDA kernel (core/cuda/random_uniform.cu), called by
// core/cuda/random_uniform_kernels.cc. Plain pointers and sizes only. Enqueues on `stream`
// and returns at once; n == 0 launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/philox.h"

struct CUstream_st;

namespace strata::cuda {

// What a random_uniform_rows node draws with, apart from the run's step.
struct RandomUniformNode {
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
  std::int64_t columns = 1;
  bool per_sample = true;  // rows numbered from the shard's sample_offset; else one row, from 0
};

// out[i] = Philox(mix_seed(seed, step), stream).uniform(first + i), first being
// sample_offset * columns for per-sample rows and 0 for the batch's one row: the CPU
// kernel's numbers bit for bit (a uniform is exact in float). The step and sample offset
// are read from `scalars` on the device, so a captured launch draws each step's numbers.
void launch_random_uniform(float* out, std::int64_t n, const RandomUniformNode& node, const RunScalars* scalars,
                           CUstream_st* stream);

}  // namespace strata::cuda
