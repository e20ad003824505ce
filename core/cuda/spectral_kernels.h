// The CUDA kernels of rfft and irfft (core/ops/spectral_ops.h; the CPU kernels are in
// core/cpu/kernels/spectral.cc), on cuFFT's batched real transforms: R2C, and C2R on a
// copy of the spectrum in the run's workspace (C2R overwrites its input) whose first and
// last bins' imaginary parts are zeroed (the op ignores them; cuFFT leaves them undefined).
// Unnormalized, as the CPU's. A cuFFT plan per kernel, made on its first run and kept in
// its cache (CufftPlan, an RAII handle). Defined only in a build with STRATA_WITH_CUDA;
// this header is plain C++ and compiles in every build.
#pragma once

namespace strata {
struct KernelContext;
class OpRegistry;
}

namespace strata::cuda {

void rfft(KernelContext& ctx);
void irfft(KernelContext& ctx);

// Binds the ops these kernels serve in the op table (core/cuda/register_kernels.cc calls it).
void register_spectral_kernels(OpRegistry& registry);

}  // namespace strata::cuda
