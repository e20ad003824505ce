// The CUDA kernels of batch_normalization and batch_normalization_grad (registered by
// register_batch_norm_kernels, below; the CPU's are in core/cpu/kernels/batch_norm.cc).
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}  // namespace strata

namespace strata::cuda {

// (x, gamma, beta, moving_mean, moving_variance) -> (y, mean, variance) by the run's mode.
void batch_normalization(KernelContext& ctx);
// (dy, x, gamma, mean, variance, dmean, dvariance) -> (dx, dgamma, dbeta).
void batch_normalization_grad(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_batch_norm_kernels(OpRegistry& registry);

}  // namespace strata::cuda
