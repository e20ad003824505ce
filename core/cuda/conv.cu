// Data movement around cuDNN's convolutions (core/cuda/conv_launch.h): explicit padding,
// its adjoint, and the kernel layout's transpose. Flat kernels, a thread per output
// element (core/cuda/grid_stride.cuh); copies only, so results are exact.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/conv_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

// Element i of an NDHWC tensor of dims (., planes, rows, cols, c): its image, plane, row,
// column and channel.
struct Index5 {
  std::int64_t n, z, y, x, ch;
};
__device__ inline Index5 index_of(std::int64_t i, std::int64_t planes, std::int64_t rows, std::int64_t cols,
                                  std::int64_t c) {
  Index5 at;
  at.ch = i % c;
  at.x = i / c % cols;
  at.y = i / (c * cols) % rows;
  at.z = i / (c * cols * rows) % planes;
  at.n = i / (c * cols * rows * planes);
  return at;
}

__global__ void pad_ndhwc(const float* __restrict__ small, float* __restrict__ big, PadShape s, std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const Index5 at = index_of(i, s.big_d, s.big_h, s.big_w, s.c);
    const std::int64_t z = at.z - s.front, y = at.y - s.top, x = at.x - s.left;
    const bool inside = z >= 0 && z < s.d && y >= 0 && y < s.h && x >= 0 && x < s.w;
    big[i] = inside ? small[(((at.n * s.d + z) * s.h + y) * s.w + x) * s.c + at.ch] : 0.f;
  }
}

__global__ void crop_ndhwc(const float* __restrict__ big, float* __restrict__ small, PadShape s,
                           std::int64_t count) {
  for (std::int64_t i = first_index(); i < count; i += grid_stride()) {
    const Index5 at = index_of(i, s.d, s.h, s.w, s.c);
    const std::int64_t z = at.z + s.front, y = at.y + s.top, x = at.x + s.left;
    small[i] = big[(((at.n * s.big_d + z) * s.big_h + y) * s.big_w + x) * s.c + at.ch];
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

void launch_pad_channels_last(const float* small, float* big, const PadShape& shape, CUstream_st* stream) {
  const std::int64_t count = shape.n * shape.big_d * shape.big_h * shape.big_w * shape.c;
  if (count == 0) return;
  pad_ndhwc<<<blocks_for(count), kThreads, 0, stream>>>(small, big, shape, count);
}

void launch_crop_channels_last(const float* big, float* small, const PadShape& shape, CUstream_st* stream) {
  const std::int64_t count = shape.n * shape.d * shape.h * shape.w * shape.c;
  if (count == 0) return;
  crop_ndhwc<<<blocks_for(count), kThreads, 0, stream>>>(big, small, shape, count);
}

void launch_transpose(const float* in, float* out, std::int64_t rows, std::int64_t cols, CUstream_st* stream) {
  const std::int64_t count = rows * cols;
  if (count == 0) return;
  transpose<<<blocks_for(count), kThreads, 0, stream>>>(in, out, rows, cols, count);
}

}  // namespace strata::cuda
