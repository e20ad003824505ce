// Launcher of the dropout CUDA kernel (core/cuda/dropout.cu), called by
// core/cuda/dropout_kernels.cc. Plain pointers and sizes only. Enqueues on `stream` and
// returns at once; n == 0 launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/philox.h"

struct CUstream_st;

namespace strata::cuda {

// What a dropout node draws with, apart from the run's step.
struct DropoutNode {
  std::uint64_t seed = 0;
  std::uint64_t stream = 0;
  float rate = 0.f;
  float keep_scale = 1.f;
  std::int64_t sample_size = 0;  // elements per sample (0 for a scalar or an empty batch)
};

// out[i] = dropout of x[i] for i < n, x[i] being element sample_offset * sample_size + i
// of the step's global batch (core/cuda/philox.h: dropout_block), with the key of the
// step. The step and the sample offset are read from `scalars` on the device, so a
// captured launch draws each replayed step's own mask.
void launch_dropout(const float* x, float* out, std::int64_t n, const DropoutNode& node, const RunScalars* scalars,
                    CUstream_st* stream);

}  // namespace strata::cuda
