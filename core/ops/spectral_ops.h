// Fourier transforms of real signals along the last axis, for the audio layers (Keras's
// MelSpectrogram and keras.ops.stft). A complex value is stored as two floats, real then
// imaginary, in a last axis of size 2. Unnormalized, as numpy.fft.rfft / irfft without
// irfft's 1/n; n (the transform's length) even or odd (n/2 rounds down).
//   rfft(x (..., n))               -> (..., n/2 + 1, 2):  X_k = Σ_t x_t e^{−2πi k t / n}
//   irfft(X (..., n/2 + 1, 2), n)  -> (..., n):           x_t = Σ_{k=0}^{n−1} X_k e^{2πi k t / n},
//                                     X extended by X_{n−k} = conj(X_k), so the imaginary
//                                     parts of X_0 and (n even) X_{n/2} do not count.
// Both are linear and each one's adjoint is the other with the paired bins (0 < k < n/2,
// and k = n/2 too for odd n) weighted (½ or 2): the gradients are graph ops over the two, differentiable to any order.
// The CPU kernels run KISS FFT (core/cpu/kernels/spectral.cc), the CUDA kernels cuFFT
// (core/cuda/spectral_kernels.cc); docs/audio.md says how the library was chosen.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph.h"
#include "core/tensor.h"

namespace strata::ops {

Output rfft(Output x);
Output irfft(Output spectrum, std::int64_t n);

// tf.signal.frame(x, length, step) along the last axis without padding the end: x (..., n),
// n known, gives (..., frames, length), frame f holding x[f·step .. f·step + length),
// frames = 1 + (n − length) / step (a signal shorter than one frame is refused). Composed
// of reshapes, crops and one concatenation (ceil(length / step) crops), so it runs on every
// device those run on and differentiates.
Output frames(Output x, std::int64_t length, std::int64_t step);

// keras.ops.stft as Keras's TensorFlow backend computes it (MelSpectrogram's first steps):
// x (..., n) reflect-padded by fft_length / 2 on both sides when `center` (the edge sample
// not repeated; n must exceed fft_length / 2), frames of fft_length samples every `step`,
// each times `window` (fft_length values; an invalid Output: no window), then rfft:
// (..., frames, fft_length / 2 + 1, 2).
Output stft(Output x, Output window, std::int64_t fft_length, std::int64_t step, bool center);
// The window Keras's stft applies: TensorFlow's hann_window or hamming_window(length,
// periodic=True) in float32 (periodic only when length is even, as TensorFlow's), centered
// in fft_length samples by zeros ((fft_length − length) / 2 before).
Tensor stft_window(const std::string& name, std::int64_t length, std::int64_t fft_length);

}  // namespace strata::ops
