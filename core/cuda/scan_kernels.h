// The CUDA kernels of the scan ops (core/ops/scan_ops.h; the CPU's are in
// core/cpu/kernels/scan.cc): cumsum, cumprod, cumprod_grad, reverse and argsort, equal to
// the CPU's (the same order of sums and products, the same stable order). Defined only in a build with
// STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void cumsum(KernelContext& ctx);
void cumprod(KernelContext& ctx);
void cumprod_grad(KernelContext& ctx);
void reverse(KernelContext& ctx);
void argsort(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_scan_kernels(OpRegistry& registry);

}  // namespace strata::cuda
