// The CUDA kernel of dropout (core/cuda/register_kernels.cc registers it; the CPU kernel
// is in core/cpu/kernels/nn.cc). In training, with a rate above 0, it draws the CPU
// kernel's mask bit for bit: the same Philox-4x32-10 stream keyed on (seed, step) and the
// node's stream, the same numbering of elements in the step's global batch (a
// data-parallel shard starts at its sample_offset), the same rule (kept where the word's
// uniform is >= rate, scaled by 1 / (1 - rate)); outside training, or at rate 0, a copy.
// Defined only in a build with STRATA_WITH_CUDA; this header is plain C++ and compiles in
// every build.
#pragma once

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

void dropout(KernelContext& ctx);

}  // namespace strata::cuda
