// The CUDA kernel of upsample_nearest2d (core/cuda/register_kernels.cc registers it; the
// CPU kernel is in core/cpu/kernels/pool.cc): a copy, equal to the CPU's bit for bit.
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
#pragma once

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

// upsample_nearest2d(x (N, H, W, C)) -> (N, H * size[0], W * size[1], C).
void upsample_nearest2d(KernelContext& ctx);

}  // namespace strata::cuda
