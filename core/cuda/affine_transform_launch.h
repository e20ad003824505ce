// Launcher of the image_affine_transform CUDA kernel (core/cuda/affine_transform.cu),
// called by core/cuda/affine_transform_kernels.cc. Plain pointers and sizes only. Enqueues
// on `stream` and returns at once; an empty output launches nothing. Launch errors are for
// the caller to check.
#pragma once

#include <cstdint>

#include "core/affine_sample.h"

struct CUstream_st;

namespace strata::cuda {

// out (batch, out_h, out_w, channels) = each image of `images` (batch, g.height, g.width,
// g.channels) sampled by core/affine_sample.h under its row of `transforms` (8 floats a
// row; one row for every image when `shared`).
void launch_affine_transform(const float* images, const float* transforms, bool shared, float* out,
                             std::int64_t batch, std::int64_t out_h, std::int64_t out_w, const AffineImage& g,
                             CUstream_st* stream);

}  // namespace strata::cuda
