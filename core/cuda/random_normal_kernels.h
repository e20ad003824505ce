// The CUDA kernel of random_normal_like (registered by register_*_kernels, below; the CPU
// kernel is in core/cpu/kernels/random.cc). It draws the CPU kernel's numbers: the same
// Philox-4x32-10 stream keyed on (seed, step) and the node's stream, the same numbering of
// elements in the step's global batch (a data-parallel shard starts at its
// sample_offset), the same Box-Muller in double, rounded once to float; CUDA's double log
// and cos may differ from glibc's in the last bit, so a draw may differ from the CPU's by
// one rounding of the float. Defined only in a build with STRATA_WITH_CUDA; this header is
// plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void random_normal_like(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_random_normal_kernels(OpRegistry& registry);

}  // namespace strata::cuda
