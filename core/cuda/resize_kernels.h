// The CUDA kernel of resize_weights (registered by register_resize_kernels, below; the CPU
// kernel is in core/cpu/kernels/resize.cc): the same arithmetic (core/resize_weights.h).
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// resize_weights(x) -> (x's size on the axis, the output size): the axis's matrix.
void resize_weights(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_resize_kernels(OpRegistry& registry);

}  // namespace strata::cuda
