// The CUDA kernels of reduce_sum, reduce_mean and reduce_max
// (registered by register_*_kernels, below; the CPU kernels are in
// core/cpu/kernels/reduce.cc): the same axes, keepdims and empty-reduction results as the
// CPU (a sum over nothing is 0, a mean over nothing 0, a max over nothing -inf; a max
// skips NaN as std::max does). Sums add in another order than the CPU's, so they agree to
// rounding, not bit for bit. Defined only in a build with STRATA_WITH_CUDA; this header
// is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void reduce_sum(KernelContext& ctx);
void reduce_mean(KernelContext& ctx);
void reduce_max(KernelContext& ctx);
// sum_to_like (core/ops/shape_ops.cc): a broadcast's gradient summed back to its input's
// shape. expand_to (core/ops/reduce_ops.cc): a reduction's gradient spread over the
// reduced dims, divided by their count for a mean.
void sum_to_like(KernelContext& ctx);
void expand_to(KernelContext& ctx);
// argmax (core/ops/nn_ops.cc): the int64 position of each lane's first largest element
// along the axis, as the CPU kernel finds it (bit for bit: no arithmetic).
void argmax(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_reduce_kernels(OpRegistry& registry);

}  // namespace strata::cuda
