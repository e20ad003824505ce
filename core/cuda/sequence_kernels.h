// The CUDA kernels of concat_last, split_last and repeat_vector
// (registered by register_*_kernels, below; the CPU kernels are in
// core/cpu/kernels/sequence.cc): copies, equal to the CPU's bit for bit. Defined only in
// a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// concat_last(a (..., p), b (..., q)) -> (..., p + q).
void concat_last(KernelContext& ctx);
// split_last(g (..., p + q), like_a (..., p), like_b (..., q)) -> (..., p), (..., q).
void split_last(KernelContext& ctx);
// repeat_vector(x (B, F)) -> (B, n, F), n the node's attribute.
void repeat_vector(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_sequence_kernels(OpRegistry& registry);

}  // namespace strata::cuda
