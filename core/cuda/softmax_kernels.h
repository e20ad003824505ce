// The CUDA kernels of softmax, log_softmax, softmax_grad, sparsemax and sparsemax_grad
// (registered by register_*_kernels, below; the CPU kernels are in
// core/cpu/kernels/nn.cc), along any axis. The CPU kernels' expressions, numerically
// stable as theirs are: each lane's max is subtracted before exp; a softmax is scaled by
// 1 / sum, a log_softmax is (x - max) - log(sum). exp and log are CUDA's and the sums add
// in another order, so the results agree with the CPU's to rounding, not bit for bit.
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void softmax(KernelContext& ctx);
void log_softmax(KernelContext& ctx);
// softmax_grad(g, y) = y * (g - sum(g * y)) along the axis.
void softmax_grad(KernelContext& ctx);
// Keras's sparsemax (core/cuda/sparsemax.cu says how its threshold is found), and its
// gradient sparsemax_grad(g, x).
void sparsemax(KernelContext& ctx);
void sparsemax_grad(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_softmax_kernels(OpRegistry& registry);

}  // namespace strata::cuda
