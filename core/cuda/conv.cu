// Data movement around cuDNN's convolutions (core/cuda/conv_launch.h): explicit padding,
// its adjoint, and the kernel layout's transpose. Flat kernels, a thread per output
// element (core/cuda/grid_stride.cuh); copies only, so results are exact.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/conv_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

__global__ void pad_nhwc(const float* __restrict__ small, float* __restrict__ big, PadShape s, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t ch = i % s.c;
    const std::int64_t x = i / s.c % s.big_w - s.left;
    const std::int64_t y = i / (s.c * s.big_w) % s.big_h - s.top;
    const std::int64_t n = i / (s.c * s.big_w * s.big_h);
    const bool inside = y >= 0 && y < s.h && x >= 0 && x < s.w;
    big[i] = inside ? small[((n * s.h + y) * s.w + x) * s.c + ch] : 0.f;
  }
}

__global__ void crop_nhwc(const float* __restrict__ big, float* __restrict__ small, PadShape s, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t ch = i % s.c;
    const std::int64_t x = i / s.c % s.w + s.left;
    const std::int64_t y = i / (s.c * s.w) % s.h + s.top;
    const std::int64_t n = i / (s.c * s.w * s.h);
    small[i] = big[((n * s.big_h + y) * s.big_w + x) * s.c + ch];
  }
}

// Thread i writes out[i]: out is (cols x rows), so i = col * rows + row.
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, std::int64_t rows, std::int64_t cols,
                          std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const std::int64_t col = i / rows, row = i % rows;
    out[i] = in[row * cols + col];
  }
}

}  // namespace

void launch_pad_nhwc(const float* small, float* big, const PadShape& shape, CUstream_st* stream) {
  const std::int64_t count = shape.n * shape.big_h * shape.big_w * shape.c;
  if (count == 0) return;
  pad_nhwc<<<blocks_for(count), kThreads, 0, stream>>>(small, big, shape, count);
}

void launch_crop_nhwc(const float* big, float* small, const PadShape& shape, CUstream_st* stream) {
  const std::int64_t count = shape.n * shape.h * shape.w * shape.c;
  if (count == 0) return;
  crop_nhwc<<<blocks_for(count), kThreads, 0, stream>>>(big, small, shape, count);
}

void launch_transpose(const float* in, float* out, std::int64_t rows, std::int64_t cols, CUstream_st* stream) {
  const std::int64_t count = rows * cols;
  if (count == 0) return;
  transpose<<<blocks_for(count), kThreads, 0, stream>>>(in, out, rows, cols, count);
}

}  // namespace strata::cuda
