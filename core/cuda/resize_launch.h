// Launcher of the resize_weights CUDA kernel (core/cuda/resize.cu), called by
// core/cuda/resize_kernels.cc. Plain pointers and sizes only. Enqueues on `stream` and
// returns at once; launch errors are for the caller to check.
#pragma once

#include <cstdint>

#include "core/resize_weights.h"

struct CUstream_st;

namespace strata::cuda {

// out (in_size, out_size): column o is zeroed, then gets output o's weights over the
// window [start, start + size) (core/resize_weights.h's resize_weights_row).
void launch_resize_weights(float* out, std::int64_t in_size, std::int64_t out_size, std::int64_t start,
                           std::int64_t size, ResizeKind kind, CUstream_st* stream);

}  // namespace strata::cuda
