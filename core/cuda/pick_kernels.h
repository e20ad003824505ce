// The CUDA kernels of pick and unpick (core/cuda/register_kernels.cc registers them; the
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
}

namespace strata::cuda {

void pick(KernelContext& ctx);
void unpick(KernelContext& ctx);

}  // namespace strata::cuda
