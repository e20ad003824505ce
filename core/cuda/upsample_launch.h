// Launcher of the nearest-neighbour upsampling CUDA kernel (core/cuda/upsample.cu),
// called by core/cuda/upsample_kernels.cc. Plain pointers and sizes only. Enqueues on
// `stream` and returns at once; an empty output launches nothing. Launch errors are for
// the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// x (n, h, w, c) -> y (n, h * sh, w * sw, c): y[b, oy, ox, ch] = x[b, oy / sh, ox / sw, ch].
struct UpsampleShape {
  std::int64_t n = 0, h = 0, w = 0, c = 0;
  std::int64_t sh = 1, sw = 1;
};

void launch_upsample_nearest2d(const float* x, float* y, const UpsampleShape& s, CUstream_st* stream);

}  // namespace strata::cuda
