// The CUDA kernels of constant, fill_like, cast, identity and stop_gradient
// (core/cuda/register_kernels.cc registers them; the CPU kernels are in
// core/cpu/kernels/sources.cc), with the CPU kernels' results. Defined only in a build
// with STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

void constant(KernelContext& ctx);
void fill_like(KernelContext& ctx);
void cast(KernelContext& ctx);

}  // namespace strata::cuda
