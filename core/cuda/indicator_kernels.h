// The CUDA kernels of one_hot and causal_mask (registered by register_*_kernels, below;
// the CPU kernels are in core/cpu/kernels/one_hot.cc and causal_mask.cc): zeros and
// ones, equal to the CPU's. one_hot takes float32, int32 or int64 labels, as on the CPU;
// a label that names no class (outside [0, num_classes), or a float that is no whole
// number) gives a row of zeros there and here. Defined only in a build with
// STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

// one_hot(labels) -> labels.shape + (num_classes).
void one_hot(KernelContext& ctx);
// causal_mask(scores (..., q, k)) -> (q, k): 1 where the query's index >= the key's.
void causal_mask(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_indicator_kernels(OpRegistry& registry);

}  // namespace strata::cuda
