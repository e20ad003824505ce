// Fourier transforms of real signals along the last axis, for the audio layers (Keras's
// MelSpectrogram and keras.ops.stft). A complex value is stored as two floats, real then
// imaginary, in a last axis of size 2. Unnormalized, as numpy.fft.rfft / irfft without
// irfft's 1/n; n (the transform's length) must be even.
//   rfft(x (..., n))               -> (..., n/2 + 1, 2):  X_k = Σ_t x_t e^{−2πi k t / n}
//   irfft(X (..., n/2 + 1, 2), n)  -> (..., n):           x_t = Σ_{k=0}^{n−1} X_k e^{2πi k t / n},
//                                     X extended by X_{n−k} = conj(X_k), so the imaginary
//                                     parts of X_0 and X_{n/2} do not count.
// Both are linear and each one's adjoint is the other with the inner bins (0 < k < n/2)
// weighted (½ or 2): the gradients are graph ops over the two, differentiable to any order.
// The CPU kernels run KISS FFT (core/cpu/kernels/spectral.cc), the CUDA kernels cuFFT
// (core/cuda/spectral_kernels.cc); docs/audio.md says how the library was chosen.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

Output rfft(Output x);
Output irfft(Output spectrum, std::int64_t n);

}  // namespace strata::ops
