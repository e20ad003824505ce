// STFTSpectrogram: keras.layers.STFTSpectrogram, the short-time Fourier transform of each
// channel of (batch, time, channels) signals (channels_first: (batch, channels, time)),
// computed as Keras computes it: a strided 1-D convolution of each channel with two kernels
// (frame_length, 1, fft_length / 2 + 1) holding the windowed DFT's real and imaginary parts,
//   real_kernel[t, f] =  cos(2π t f / fft_length) · window[t] / scaling,
//   imag_kernel[t, f] = −sin(2π t f / fft_length) · window[t] / scaling,
// window any of SciPy's windows without parameters (symmetric, or periodic), or none; scaling
// "density" (√Σ window²), "spectrum" (Σ |window|) or none. The kernels are trainable
// weights, saved and loaded as Keras's (a file's trained kernels are what the layer
// applies, which is why this is a convolution and not an FFT). Frames start every
// frame_step samples (default frame_length / 2), padding "valid" or "same" as Conv1D's.
// mode: "real", "imag", "stft" (real then imaginary bins), "magnitude" √max(re² + im², ε),
// "log" (its log, floored at ε), "psd" (re² + im², the inner bins doubled), "angle"
// (arctan2(im, re)); ε = 1e-7.
// Output (batch, frames, channels · bins), or with expand_dims (batch, frames, bins,
// channels); channels_first (batch, channels · bins, frames) / (batch, channels, frames, bins).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct STFTSpectrogramOptions {  // Keras signature order
  std::string mode = "log";
  std::int64_t frame_length = 256;
  std::optional<std::int64_t> frame_step;  // default frame_length / 2
  std::optional<std::int64_t> fft_length;  // default the next power of two ≥ frame_length
  std::optional<std::string> window = "hann";
  bool periodic = false;
  std::optional<std::string> scaling = "density";
  std::string padding = "valid";
  bool expand_dims = false;
  std::string data_format;  // "" = channels_last
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // Keras's get_config order.
  static constexpr auto keras_fields() {
    using O = STFTSpectrogramOptions;
    return std::tuple{keras_field("mode", &O::mode),
                      keras_field("frame_length", &O::frame_length).at_least(1),
                      keras_field("frame_step", &O::frame_step).at_least(1),
                      keras_field("fft_length", &O::fft_length).at_least(1),
                      keras_field("window", &O::window),
                      keras_field("periodic", &O::periodic),
                      keras_field("scaling", &O::scaling),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("expand_dims", &O::expand_dims)};
  }
};

class STFTSpectrogramImpl : public LayerImpl {
 public:
  explicit STFTSpectrogramImpl(STFTSpectrogramOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  STFTSpectrogramOptions options;
  std::int64_t frame_step, fft_length;  // the options' values or their defaults
  Variable real_kernel;  // absent in mode "imag"
  Variable imag_kernel;  // absent in mode "real"
};

class STFTSpectrogram : public Layer {
 public:
  explicit STFTSpectrogram(STFTSpectrogramOptions options = {});
};

// Keras's STFT initializer (keras.initializers.STFT) for a kernel (frame_length, 1, bins):
// side "real" or "imag".
Tensor stft_kernel(const std::string& side, std::int64_t frame_length, std::int64_t bins,
                   const std::optional<std::string>& window, bool periodic, const std::optional<std::string>& scaling);

}  // namespace strata::layers
