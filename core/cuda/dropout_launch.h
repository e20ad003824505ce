// Launcher of the dropout CUDA kernel (core/cuda/dropout.cu), called by
// core/cuda/dropout_kernels.cc. Plain pointers and sizes only. Enqueues on `stream` and
// returns at once; n == 0 launches nothing. Launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/cuda/philox.h"

struct CUstream_st;

namespace strata::cuda {

// out[i] = dropout of x[i] for i < n, x[i] being element first + i of the step's global
// batch (core/cuda/philox.h: dropout_block).
void launch_dropout(const float* x, float* out, std::int64_t first, std::int64_t n, const DropoutDraw& draw,
                    CUstream_st* stream);

}  // namespace strata::cuda
