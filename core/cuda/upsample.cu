// The nearest-neighbour upsampling CUDA kernel: a thread per output element, NHWC,
// channels fastest (neighbouring threads read neighbouring channels of one pixel). Its
// gradient is no kernel of its own: the op's gradient is an average pool times sh * sw
// (core/ops/pool_ops.cc), which has CUDA kernels.
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/upsample_launch.h"

namespace strata::cuda {

namespace {

__global__ void upsample_nearest2d_kernel(const float* __restrict__ x, float* __restrict__ y, UpsampleShape s,
                                          std::int64_t count) {
  const std::int64_t oh = s.h * s.sh, ow = s.w * s.sw;
  for (std::int64_t o = first_index(); o < count; o += grid_stride()) {
    const std::int64_t ch = o % s.c, ox = o / s.c % ow, oy = o / (s.c * ow) % oh, b = o / (s.c * ow * oh);
    y[o] = x[((b * s.h + oy / s.sh) * s.w + ox / s.sw) * s.c + ch];
  }
}

}  // namespace

void launch_upsample_nearest2d(const float* x, float* y, const UpsampleShape& s, CUstream_st* stream) {
  const std::int64_t count = s.n * s.h * s.sh * s.w * s.sw * s.c;
  if (count == 0) return;
  upsample_nearest2d_kernel<<<blocks_for(count), kThreads, 0, stream>>>(x, y, s, count);
}

}  // namespace strata::cuda
