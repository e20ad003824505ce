// The resize_weights CUDA kernel: a thread per output position, writing its column of the
// matrix by the CPU kernel's rule (core/resize_weights.h).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/resize_launch.h"

namespace strata::cuda {

namespace {

__global__ void resize_weights_kernel(float* out, std::int64_t in_size, std::int64_t out_size, std::int64_t start,
                                      std::int64_t size, ResizeKind kind) {
  for (std::int64_t o = first_index(); o < out_size; o += grid_stride()) {
    for (std::int64_t i = 0; i < in_size; ++i) out[i * out_size + o] = 0.0f;
    resize_weights_row({out + o, out_size, in_size}, o, start, size, out_size, kind);
  }
}

}  // namespace

void launch_resize_weights(float* out, std::int64_t in_size, std::int64_t out_size, std::int64_t start,
                           std::int64_t size, ResizeKind kind, CUstream_st* stream) {
  if (in_size == 0 || out_size == 0) return;
  resize_weights_kernel<<<blocks_for(out_size), kThreads, 0, stream>>>(out, in_size, out_size, start, size, kind);
}

}  // namespace strata::cuda
