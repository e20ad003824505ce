// MelSpectrogram: keras.layers.MelSpectrogram, a (batch, time) signal's mel-scaled power
// spectrogram (batch, num_mel_bins, frames), computed as Keras 3.15's TensorFlow backend
// computes it (docs/audio.md):
//   1. the signal reflect-padded by fft_length / 2 on both sides (center=True),
//   2. frames of fft_length samples every sequence_stride samples,
//   3. each frame times the window ("hann" or "hamming", TensorFlow's periodic windows of
//      sequence_length samples, centered in fft_length by zeros; or none),
//   4. |rfft(frame)|^mag_exp, the magnitude as √(re² + im²),
//   5. times the HTK mel filterbank (fft_length / 2 + 1, num_mel_bins) from min_freq to
//      max_freq (default sampling_rate / 2), mel(f) = 1127 ln(1 + f / 700),
//   6. power_to_db: 10 log10(max(x, min_power)) − 10 log10(max(|ref_power|, min_power)),
//      floored at the batch's largest value less top_db,
//   7. the mel and frame axes swapped.
// The layer has no weights. fft_length may be even or odd.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct MelSpectrogramOptions {  // Keras signature order
  std::int64_t fft_length = 2048;
  std::int64_t sequence_stride = 512;
  std::optional<std::int64_t> sequence_length;  // default fft_length
  std::optional<std::string> window = "hann";   // "hann", "hamming" or none
  double sampling_rate = 16000;
  std::int64_t num_mel_bins = 128;
  double min_freq = 20.0;
  std::optional<double> max_freq;  // default int(sampling_rate / 2)
  bool power_to_db = true;
  double top_db = 80.0;
  double mag_exp = 2.0;
  double min_power = 1e-10;
  double ref_power = 1.0;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // Keras's get_config order.
  static constexpr auto keras_fields() {
    using O = MelSpectrogramOptions;
    return std::tuple{keras_field("fft_length", &O::fft_length).at_least(1),
                      keras_field("sequence_stride", &O::sequence_stride).at_least(1),
                      keras_field("sequence_length", &O::sequence_length).at_least(1),
                      keras_field("window", &O::window),
                      keras_field("sampling_rate", &O::sampling_rate),
                      keras_field("num_mel_bins", &O::num_mel_bins).at_least(1),
                      keras_field("min_freq", &O::min_freq),
                      keras_field("max_freq", &O::max_freq),
                      keras_field("power_to_db", &O::power_to_db),
                      keras_field("top_db", &O::top_db),
                      keras_field("mag_exp", &O::mag_exp),
                      keras_field("min_power", &O::min_power),
                      keras_field("ref_power", &O::ref_power)};
  }
};

class MelSpectrogramImpl : public LayerImpl {
 public:
  explicit MelSpectrogramImpl(MelSpectrogramOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  MelSpectrogramOptions options;

 private:
  // Read by the graph, not weights (Keras's layer has none): the window padded to
  // fft_length (absent without a window) and the mel filterbank.
  Variable window_;
  Variable mel_matrix_;
};

class MelSpectrogram : public Layer {
 public:
  explicit MelSpectrogram(MelSpectrogramOptions options = {});
};

// Keras's linear_to_mel_weight_matrix (num_spectrogram_bins, num_mel_bins), in float32.
Tensor linear_to_mel_weight_matrix(std::int64_t num_mel_bins, std::int64_t num_spectrogram_bins, double sampling_rate,
                                   double lower_edge_hertz, double upper_edge_hertz);

}  // namespace strata::layers
