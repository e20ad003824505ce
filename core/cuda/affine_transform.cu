// The image_affine_transform CUDA kernel: a thread per output element, each sampled by the
// CPU kernel's rule (core/affine_sample.h).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/affine_transform_launch.h"
#include "core/cuda/grid_stride.cuh"

namespace strata::cuda {

namespace {

__global__ void affine_transform_kernel(const float* images, const float* transforms, bool shared, float* out,
                                        std::int64_t n, std::int64_t out_h, std::int64_t out_w, AffineImage g) {
  const std::int64_t image_size = g.height * g.width * g.channels;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t c = i % g.channels;
    const std::int64_t x = (i / g.channels) % out_w;
    const std::int64_t y = (i / (g.channels * out_w)) % out_h;
    const std::int64_t b = i / (g.channels * out_w * out_h);
    out[i] = affine_sample(images + b * image_size, g, transforms + (shared ? 0 : b * 8), y, x, c);
  }
}

}  // namespace

void launch_affine_transform(const float* images, const float* transforms, bool shared, float* out,
                             std::int64_t batch, std::int64_t out_h, std::int64_t out_w, const AffineImage& g,
                             CUstream_st* stream) {
  const std::int64_t n = batch * out_h * out_w * g.channels;
  if (n == 0) return;
  affine_transform_kernel<<<blocks_for(n), kThreads, 0, stream>>>(images, transforms, shared, out, n, out_h, out_w, g);
}

}  // namespace strata::cuda
