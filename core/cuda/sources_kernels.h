// The CUDA kernels of constant, fill_like and cast (registered by register_*_kernels,
// below; identity and stop_gradient copy their input, array_kernels.h; the CPU kernels are in
// core/cpu/kernels/sources.cc), with the CPU kernels' results. Defined only in a build
// with STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void constant(KernelContext& ctx);
void fill_like(KernelContext& ctx);
void cast(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_source_kernels(OpRegistry& registry);

}  // namespace strata::cuda
