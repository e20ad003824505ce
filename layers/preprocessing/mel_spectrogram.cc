#include "layers/preprocessing/mel_spectrogram.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/spectral_ops.h"

namespace strata::layers {

namespace {

// Keras's mel scale (HTK): 1127 ln(1 + f / 700), in float32 as Keras computes it.
float hertz_to_mel(float hertz) { return 1127.0f * std::log(1.0f + hertz / 700.0f); }

// tf.linspace(start, stop, num) in float32: start + i · (stop − start) / (num − 1), the
// last value stop itself.
std::vector<float> mel_linspace(float start, float stop, std::int64_t num) {
  std::vector<float> v(static_cast<std::size_t>(num), start);
  if (num < 2) return v;
  const float delta = (stop - start) / static_cast<float>(num - 1);
  for (std::int64_t i = 1; i < num - 1; ++i) v[static_cast<std::size_t>(i)] = start + static_cast<float>(i) * delta;
  v.back() = stop;
  return v;
}

}  // namespace

Tensor linear_to_mel_weight_matrix(std::int64_t num_mel_bins, std::int64_t num_spectrogram_bins, double sampling_rate,
                                   double lower_edge_hertz, double upper_edge_hertz) {
  const float nyquist = static_cast<float>(sampling_rate) / 2.0f;
  // The bins' frequencies but the first (0 Hz, whose row stays zero), on the mel scale.
  const std::vector<float> linear = mel_linspace(0.0f, nyquist, num_spectrogram_bins);
  const std::vector<float> edges = mel_linspace(hertz_to_mel(static_cast<float>(lower_edge_hertz)),
                                                hertz_to_mel(static_cast<float>(upper_edge_hertz)), num_mel_bins + 2);
  Tensor m(Shape{num_spectrogram_bins, num_mel_bins});
  float* out = m.data<float>();
  for (std::int64_t k = 0; k < num_spectrogram_bins; ++k) {
    const float mel = hertz_to_mel(linear[static_cast<std::size_t>(k)]);
    for (std::int64_t j = 0; j < num_mel_bins; ++j) {
      const auto e = static_cast<std::size_t>(j);
      const float lower = (mel - edges[e]) / (edges[e + 1] - edges[e]);
      const float upper = (edges[e + 2] - mel) / (edges[e + 2] - edges[e + 1]);
      out[k * num_mel_bins + j] = k == 0 ? 0.0f : std::max(0.0f, std::min(lower, upper));
    }
  }
  return m;
}

MelSpectrogramImpl::MelSpectrogramImpl(MelSpectrogramOptions o)
    : LayerImpl("MelSpectrogram", o.name), options(std::move(o)) {
  auto& op = options;
  if (!op.sequence_length) op.sequence_length = op.fft_length;
  if (op.fft_length < *op.sequence_length) {
    throw ValueError("`fft_length` must be greater than or equal to   `sequence_length`. Received: `sequence_length`=" +
                     std::to_string(*op.sequence_length) + ", `fft_length`=" + std::to_string(op.fft_length) + ".");
  }
  if (!op.max_freq || *op.max_freq == 0.0) op.max_freq = std::trunc(op.sampling_rate / 2.0);  // Keras's `or`
  if (op.window && *op.window != "hann" && *op.window != "hamming") {
    throw ValueError("If a string is passed to `window`, it must be one of `\"hann\"`, `\"hamming\"`. "
                     "Received: window=" + *op.window);
  }
}

void MelSpectrogramImpl::build(const std::vector<TensorSpec>& inputs) {
  if (inputs[0].shape.rank() != 2) {
    throw ShapeError("MelSpectrogram '" + name + "' expects input of rank 2 (batch, time), got " +
                     inputs[0].shape.to_string());
  }
  const auto& op = options;
  if (op.window) {
    window_ = Variable(name + "/window", ops::stft_window(*op.window, *op.sequence_length, op.fft_length), false);
  }
  mel_matrix_ = Variable(name + "/mel_matrix",
                         linear_to_mel_weight_matrix(op.num_mel_bins, op.fft_length / 2 + 1, op.sampling_rate,
                                                     op.min_freq, *op.max_freq),
                         false);
}

std::vector<Output> MelSpectrogramImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const auto& op = options;
  const Output& in = inputs[0];
  if (in.dtype() != DType::float32) {
    throw ValueError("MelSpectrogram '" + name + "': expects float32 input, got " + to_string(in.dtype()));
  }
  const std::int64_t time = in.shape()[1];
  const std::int64_t half = op.fft_length / 2;
  if (time == kUnknownDim || time <= half) {
    throw ShapeError("MelSpectrogram '" + name + "': reflect padding by fft_length / 2 = " + std::to_string(half) +
                     " needs a known time axis longer than that, got " + in.shape().to_string());
  }
  const Output spectrum = ops::stft(in, window_.defined() ? graph.variable(window_) : Output{}, op.fft_length,
                                    op.sequence_stride, true);  // (b, frames, bins, 2)
  Output spec = ops::sqrt(ops::reduce_sum(ops::square(spectrum), {-1}));
  if (op.mag_exp == 2.0) {
    spec = ops::square(spec);
  } else if (op.mag_exp != 1.0) {
    spec = ops::exp(ops::mul(ops::log(spec), static_cast<float>(op.mag_exp)));
  }
  Output mel = ops::matmul(spec, graph.variable(mel_matrix_));  // (b, f, mel)
  if (op.power_to_db) {
    const float ln10 = std::log(10.0f);
    const float min_power = static_cast<float>(op.min_power);
    Output db = ops::mul(ops::div(ops::log(ops::maximum(mel, min_power)), ln10), 10.0f);
    const float ref = std::max(std::fabs(static_cast<float>(op.ref_power)), min_power);
    db = ops::sub(db, 10.0f * (std::log(ref) / ln10));
    // Floored at the largest value of the whole batch less top_db, as Keras.
    mel = ops::maximum(db, ops::sub(ops::reduce_max(db), static_cast<float>(op.top_db)));
  }
  return {ops::transpose(mel, {0, 2, 1})};
}

MelSpectrogram::MelSpectrogram(MelSpectrogramOptions options)
    : Layer(std::make_shared<MelSpectrogramImpl>(std::move(options))) {}

namespace {
const bool mel_spectrogram_registered =
    register_keras_class(describe_layer<MelSpectrogram>("MelSpectrogram", &MelSpectrogramImpl::options));
}  // namespace

}  // namespace strata::layers
