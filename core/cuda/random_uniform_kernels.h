// The CUDA kernel of random_uniform_rows (registered by register_*_kernels, below; the CPU
// kernel is in core/cpu/kernels/random.cc). It draws the CPU kernel's numbers bit for bit:
// the same Philox-4x32-10 stream keyed on (seed, step) and the node's stream, the same
// numbering of rows. Defined only in a build with STRATA_WITH_CUDA; this header is plain
// C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void random_uniform_rows(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_random_uniform_kernels(OpRegistry& registry);

}  // namespace strata::cuda
