// The CUDA kernels of the variable updates: assign and assign_add
// (core/cpu/kernels/update.cc) and the fused optimizer steps apply_sgd, apply_adam,
// apply_rmsprop and apply_adagrad (core/cpu/kernels/optimizer_update.cc), with the CPU
// kernels' inputs and arithmetic. The variable and its slots are updated in place on the
// device; the learning rate and the step count are read there. Defined only in a build
// with STRATA_WITH_CUDA; this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void assign(KernelContext& ctx);
void assign_add(KernelContext& ctx);
void apply_sgd(KernelContext& ctx);
void apply_adam(KernelContext& ctx);
void apply_rmsprop(KernelContext& ctx);
void apply_adagrad(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_update_kernels(OpRegistry& registry);

}  // namespace strata::cuda
