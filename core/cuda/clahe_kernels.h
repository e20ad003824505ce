// The CUDA kernels of clahe_tables and clahe_interpolate (registered by
// register_clahe_kernels, below; the CPU kernels are in core/cpu/kernels/image.cc): the same
// rule (core/clahe_rule.h). Defined only in a build with STRATA_WITH_CUDA; this header is
// plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void clahe_tables(KernelContext& ctx);
void clahe_interpolate(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_clahe_kernels(OpRegistry& registry);

}  // namespace strata::cuda
