// The CUDA kernels of embedding_lookup and embedding_lookup_grad
// (registered by register_*_kernels, below; the CPU kernels are in
// core/cpu/kernels/sequence.cc), for float32, int32 and int64 ids as on the CPU.
// The gradient is deterministic, with the CPU's sums in the CPU's order: no atomics
// (core/cuda/embedding.cu). Where the CPU kernel throws on a token id outside
// [0, input_dim), these report it through the run context (core/cuda/fault_report.h):
// the run throws the CPU's ValueError, with its message, when it synchronizes — before
// a training step writes any variable. Until then the lookup's row for that id is NaN
// and the gradient adds nothing for it. Defined only in a build with STRATA_WITH_CUDA;
// this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// embedding_lookup(table (V, D), ids) -> ids.shape + (D).
void embedding_lookup(KernelContext& ctx);
// embedding_lookup_grad(g (ids.shape + (D)), ids, table) -> (V, D).
void embedding_lookup_grad(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_embedding_kernels(OpRegistry& registry);

}  // namespace strata::cuda
