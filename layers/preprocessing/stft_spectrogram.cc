#include "layers/preprocessing/stft_spectrogram.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

namespace {

constexpr float kStftEpsilon = 1e-7f;  // keras.backend.epsilon()

// scipy.signal.get_window(name, n, fftbins=periodic) for the windows Strata knows, in
// double as SciPy computes them.
std::vector<double> window_values(const std::string& name, std::int64_t n, bool periodic) {
  const std::vector<std::string> known{"hann", "hanning", "hamming", "blackman", "boxcar", "rectangular", "ones"};
  if (std::find(known.begin(), known.end(), name) == known.end()) {
    throw NotImplementedError("window \"" + name + "\" is not supported (hann, hamming, blackman, boxcar or null)");
  }
  std::vector<double> w(static_cast<std::size_t>(n), 1.0);
  if (name == "boxcar" || name == "rectangular" || name == "ones") return w;
  if (n == 1) return w;
  const double m = static_cast<double>(periodic ? n : n - 1);
  const double pi = 3.14159265358979323846;
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = 2.0 * pi * static_cast<double>(i) / m;
    double& v = w[static_cast<std::size_t>(i)];
    if (name == "hann" || name == "hanning") {
      v = 0.5 - 0.5 * std::cos(x);
    } else if (name == "hamming") {
      v = 0.54 - 0.46 * std::cos(x);
    } else {  // blackman
      v = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2.0 * x);
    }
  }
  return w;
}

// A weight's initial values computed here (the STFT kernels).
class ComputedInitializer : public InitializerImpl {
 public:
  explicit ComputedInitializer(Tensor value) : value_(std::move(value)) {}
  Tensor generate(const Shape& shape, std::uint64_t) const override {
    if (shape != value_.shape()) {
      throw ShapeError("STFT kernel of shape " + value_.shape().to_string() + " asked for " + shape.to_string());
    }
    return value_.clone();
  }
  std::string class_name() const override { return "STFT"; }

 private:
  Tensor value_;
};

}  // namespace

Tensor stft_kernel(const std::string& side, std::int64_t frame_length, std::int64_t bins,
                   const std::optional<std::string>& window, bool periodic, const std::optional<std::string>& scaling) {
  // Keras computes in float32: freq = f / fft, args = (-2 · t) · freq · π, cos or sin.
  std::vector<float> win(static_cast<std::size_t>(frame_length), 1.0f);
  float scale = 1.0f;
  if (window) {
    const std::vector<double> w = window_values(*window, frame_length, periodic);
    for (std::size_t i = 0; i < w.size(); ++i) win[i] = static_cast<float>(w[i]);
    if (scaling == std::optional<std::string>("density")) {
      float sum = 0.0f;
      for (float v : win) sum += v * v;
      scale = std::sqrt(sum);
    } else if (scaling == std::optional<std::string>("spectrum")) {
      float sum = 0.0f;
      for (float v : win) sum += std::fabs(v);
      scale = sum;
    }
  }
  const float fft = static_cast<float>((bins - 1) * 2);
  const float pi = static_cast<float>(std::acos(-1.0));
  Tensor kernel(Shape{frame_length, 1, bins});
  float* out = kernel.data<float>();
  for (std::int64_t t = 0; t < frame_length; ++t) {
    for (std::int64_t f = 0; f < bins; ++f) {
      const float args = (-2.0f * static_cast<float>(t)) * (static_cast<float>(f) / fft) * pi;
      const float v = side == "real" ? std::cos(args) : std::sin(args);
      out[t * bins + f] = window ? v * win[static_cast<std::size_t>(t)] / scale : v;
    }
  }
  return kernel;
}

STFTSpectrogramImpl::STFTSpectrogramImpl(STFTSpectrogramOptions o)
    : LayerImpl("STFTSpectrogram", o.name), options(std::move(o)) {
  const auto& op = options;
  if (op.frame_step && (*op.frame_step > op.frame_length || *op.frame_step < 1)) {
    throw ValueError("`frame_step` should be a positive integer not greater than `frame_length`. Received frame_step=" +
                     std::to_string(*op.frame_step) + ", frame_length=" + std::to_string(op.frame_length));
  }
  if (op.fft_length && *op.fft_length < op.frame_length) {
    throw ValueError("`fft_length` should be not less than `frame_length`. Received fft_length=" +
                     std::to_string(*op.fft_length) + ", frame_length=" + std::to_string(op.frame_length));
  }
  const std::vector<std::string> modes{"log", "magnitude", "psd", "real", "imag", "angle", "stft"};
  if (std::find(modes.begin(), modes.end(), op.mode) == modes.end()) {
    throw ValueError("Output mode is invalid, it must be one of log, magnitude, psd, real, imag, angle, stft. "
                     "Received: mode=" + op.mode);
  }
  if (op.mode == "angle") {
    throw NotImplementedError("STFTSpectrogram '" + name + "': mode \"angle\" is not supported (atan2)");
  }
  if (op.scaling && *op.scaling != "density" && *op.scaling != "spectrum") {
    throw ValueError("Scaling is invalid, it must be `None`, 'density' or 'spectrum'. Received scaling=" + *op.scaling);
  }
  if (op.padding != "valid" && op.padding != "same") {
    throw ValueError("Padding is invalid, it should be 'valid', 'same'. Received: padding=" + op.padding);
  }
  if (op.window) {  // an unknown window fails here, as in Keras
    try {
      window_values(*op.window, 1, false);
    } catch (const NotImplementedError& e) {
      throw NotImplementedError("STFTSpectrogram '" + name + "': " + e.what());
    }
  }
  frame_step = op.frame_step.value_or(op.frame_length / 2);
  if (frame_step < 1) throw ValueError("STFTSpectrogram: frame_length 1 needs a frame_step");
  std::int64_t fft = 1;
  while (fft < op.frame_length) fft *= 2;
  fft_length = op.fft_length.value_or(fft);
}

void STFTSpectrogramImpl::build(const std::vector<TensorSpec>& inputs) {
  if (inputs[0].shape.rank() != 3) {
    throw ShapeError("expects input of rank 3 (batch, time, channels), got " + inputs[0].shape.to_string());
  }
  const std::int64_t bins = fft_length / 2 + 1;
  const Shape shape{options.frame_length, 1, bins};
  auto kernel = [&](const char* side) {
    return Initializer(std::make_shared<ComputedInitializer>(
        stft_kernel(side, options.frame_length, bins, options.window, options.periodic, options.scaling)));
  };
  if (options.mode != "imag") real_kernel = add_weight("real_kernel", shape, kernel("real"));
  if (options.mode != "real") imag_kernel = add_weight("imag_kernel", shape, kernel("imag"));
}

std::vector<Output> STFTSpectrogramImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  const Output& in = inputs[0];
  if (in.dtype() != DType::float32) {
    throw ValueError("Invalid input type. Expected `float16`, `float32` or `float64`. Received: input type=" +
                     to_string(in.dtype()));
  }
  const Shape& s = in.shape();
  const std::int64_t channels = cf ? s[1] : s[2];
  if (channels == kUnknownDim) throw ShapeError("the channels must be known, got " + s.to_string());
  // Every channel a signal of its own: (batch · channels, time, 1).
  const Output signals = ops::expand_dims(ops::merge_axes(cf ? in : ops::transpose(in, {0, 2, 1}), 0, 2), -1);
  const std::int64_t time = cf ? s[2] : s[1];
  const std::vector<std::int64_t> pads = padding_amounts(options.padding, std::vector<std::int64_t>{time},
                                                          {options.frame_length}, {frame_step}, {1});
  auto frames = [&](const Variable& k) {  // (batch · channels, frames, bins)
    return convolve(signals, graph.variable(k), {frame_step}, {1}, pads);
  };
  Output y;
  if (options.mode == "real") {
    y = frames(real_kernel);
  } else if (options.mode == "imag") {
    y = frames(imag_kernel);
  } else {
    const Output re = frames(real_kernel), im = frames(imag_kernel);
    if (options.mode == "stft") {
      y = ops::concat({re, im}, -1);
    } else {
      const Output power = ops::add(ops::square(re), ops::square(im));
      if (options.mode == "psd") {
        // The bins but the first and the last counted twice (their conjugates).
        y = ops::add(power, ops::pad(ops::crop(power, {0, 0, 1}, {0, 0, 1}), {0, 0, 1}, {0, 0, 1}));
      } else {
        y = ops::sqrt(ops::maximum(power, kStftEpsilon));
        if (options.mode == "log") y = ops::log(ops::maximum(y, kStftEpsilon));
      }
    }
  }
  // (batch, channels, frames, bins), then Keras's layout.
  const std::int64_t bins = y.shape()[2];
  y = ops::reshape(y, {ops::dim_from(0, 1), channels, ops::dim_from(1), bins}, {in});
  if (cf) {
    if (options.expand_dims) return {y};
    return {ops::merge_axes(ops::transpose(y, {0, 1, 3, 2}), 1, 2)};
  }
  if (options.expand_dims) return {ops::transpose(y, {0, 2, 3, 1})};
  return {ops::merge_axes(ops::transpose(y, {0, 2, 1, 3}), 2, 2)};
}

STFTSpectrogram::STFTSpectrogram(STFTSpectrogramOptions options)
    : Layer(std::make_shared<STFTSpectrogramImpl>(std::move(options))) {}

namespace {
const bool stft_spectrogram_registered =
    register_keras_class(describe_layer<STFTSpectrogram>("STFTSpectrogram", &STFTSpectrogramImpl::options));
}  // namespace

}  // namespace strata::layers
