// The CUDA kernel of upsample_nearest2d (registered by register_*_kernels, below; the
// CPU kernel is in core/cpu/kernels/pool.cc): a copy, equal to the CPU's bit for bit.
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// upsample_nearest2d(x (N, H, W, C)) -> (N, H * size[0], W * size[1], C).
void upsample_nearest2d(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_upsample_kernels(OpRegistry& registry);

}  // namespace strata::cuda
