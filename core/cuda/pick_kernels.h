// The CUDA kernels of pick and unpick (registered by register_*_kernels, below; the
// CPU kernels are in core/cpu/kernels/nn.cc): a sparse categorical loss reads each row's
// labelled class, and its gradient writes it back into a row of zeros. Labels are float32,
// int32 or int64, as on the CPU. Where the CPU kernel throws on a label outside
// [0, classes) or a float label that is no whole number, these write NaN (into pick's
// element, into unpick's whole row): a kernel that only enqueues cannot throw. Defined
// only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in every
// build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void pick(KernelContext& ctx);
void unpick(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_pick_kernels(OpRegistry& registry);

}  // namespace strata::cuda
