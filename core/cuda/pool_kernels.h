// The CUDA kernels of the 2-D pooling ops (registered by register_*_kernels, below;
// the CPU kernels are in core/cpu/kernels/pool.cc): max_pool2d, avg_pool2d, their
// gradients, and max_pool2d_relu_grad. Our own kernels (core/cuda/pool.cu), not cuDNN's:
// see docs/gpu.md. Defined only in a build with STRATA_WITH_CUDA; this header is plain
// C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void max_pool2d(KernelContext& ctx);
void max_pool2d_grad(KernelContext& ctx);
void max_pool2d_relu_grad(KernelContext& ctx);
void avg_pool2d(KernelContext& ctx);
void avg_pool2d_grad(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_pool_kernels(OpRegistry& registry);

}  // namespace strata::cuda
