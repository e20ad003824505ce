// The CUDA kernel of image_affine_transform (registered by register_*_kernels, below; the
// CPU kernel is in core/cpu/kernels/image.cc): the same per-pixel rule
// (core/affine_sample.h). Defined only in a build with STRATA_WITH_CUDA; this header is
// plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void image_affine_transform(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_affine_transform_kernels(OpRegistry& registry);

}  // namespace strata::cuda
