// The CUDA kernel of dropout (registered by register_*_kernels, below; the CPU kernel
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
class OpRegistry;
}

namespace strata::cuda {

void dropout(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_dropout_kernels(OpRegistry& registry);

}  // namespace strata::cuda
