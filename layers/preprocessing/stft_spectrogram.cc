#include "layers/preprocessing/stft_spectrogram.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/arctan2.h"
#include "core/ops/array_ops.h"
#include "layers/convolutional/conv_utils.h"

namespace strata::layers {

namespace {

constexpr float kStftEpsilon = 1e-7f;  // keras.backend.epsilon()

constexpr double kPi = 3.14159265358979323846;

// Σ_k a_k cos(k x) over x = linspace(-π, π, m): SciPy's general_cosine (hann, hamming,
// blackman, flattop, nuttall, blackmanharris).
std::vector<double> general_cosine(std::int64_t m, std::initializer_list<double> a) {
  std::vector<double> w(static_cast<std::size_t>(m), 0.0);
  for (std::int64_t i = 0; i < m; ++i) {
    const double x = i == m - 1 ? kPi : -kPi + static_cast<double>(i) * (2.0 * kPi / static_cast<double>(m - 1));
    double k = 0.0;
    for (double ak : a) w[static_cast<std::size_t>(i)] += ak * std::cos(k++ * x);
  }
  return w;
}

// SciPy's taylor window (nbar 4, sll 30, normalized to 1 at the center).
std::vector<double> taylor(std::int64_t m) {
  const int nbar = 4;
  const double b = std::pow(10.0, 30.0 / 20.0), a = std::acosh(b) / kPi;
  const double s2 = nbar * nbar / (a * a + (nbar - 0.5) * (nbar - 0.5));
  std::vector<double> fm(nbar - 1);
  for (int mi = 0; mi < nbar - 1; ++mi) {
    const double m2 = static_cast<double>((mi + 1) * (mi + 1));
    double numer = mi % 2 == 0 ? 1.0 : -1.0, denom = 2.0;
    for (int j = 0; j < nbar - 1; ++j) {
      const double mj = j + 1.0;
      numer *= 1 - m2 / s2 / (a * a + (mj - 0.5) * (mj - 0.5));
      if (j != mi) denom *= 1 - m2 / (mj * mj);
    }
    fm[static_cast<std::size_t>(mi)] = numer / denom;
  }
  const auto at = [&](double n) {
    double v = 1.0;
    for (int mi = 0; mi < nbar - 1; ++mi)
      v += 2 * fm[static_cast<std::size_t>(mi)] *
           std::cos(2 * kPi * (mi + 1.0) * (n - static_cast<double>(m) / 2.0 + 0.5) / static_cast<double>(m));
    return v;
  };
  const double scale = 1.0 / at((static_cast<double>(m) - 1) / 2);
  std::vector<double> w(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) w[static_cast<std::size_t>(i)] = at(static_cast<double>(i)) * scale;
  return w;
}

double sinc(double x) { return x == 0.0 ? 1.0 : std::sin(kPi * x) / (kPi * x); }

// The symmetric window `name` (SciPy's canonical name) of m >= 2 points, in double as SciPy
// computes it.
std::vector<double> symmetric_window(const std::string& name, std::int64_t m) {
  if (name == "hann") return general_cosine(m, {0.5, 0.5});
  if (name == "hamming") return general_cosine(m, {0.54, 0.46});
  if (name == "blackman") return general_cosine(m, {0.42, 0.50, 0.08});
  if (name == "flattop") return general_cosine(m, {0.21557895, 0.41663158, 0.277263158, 0.083578947, 0.006947368});
  if (name == "nuttall") return general_cosine(m, {0.3635819, 0.4891775, 0.1365995, 0.0106411});
  if (name == "blackmanharris") return general_cosine(m, {0.35875, 0.48829, 0.14128, 0.01168});
  if (name == "taylor") return taylor(m);
  const auto d = static_cast<double>(m);
  std::vector<double> w(static_cast<std::size_t>(m), 1.0);
  for (std::int64_t i = 0; i < m; ++i) {
    const auto n = static_cast<double>(i);
    double& v = w[static_cast<std::size_t>(i)];
    if (name == "triangle") {  // n from 1 up to the middle, mirrored
      const std::int64_t k = std::min(i, m - 1 - i) + 1;
      v = m % 2 == 0 ? (2.0 * static_cast<double>(k) - 1.0) / d : 2.0 * static_cast<double>(k) / (d + 1.0);
    } else if (name == "bartlett") {
      v = n <= (d - 1) / 2.0 ? 2.0 * n / (d - 1) : 2.0 - 2.0 * n / (d - 1);
    } else if (name == "parzen") {
      const double x = std::fabs(n - (d - 1) / 2.0);
      v = x <= (d - 1) / 4.0 ? 1 - 6 * std::pow(x / (d / 2.0), 2.0) + 6 * std::pow(x / (d / 2.0), 3.0)
                             : 2 * std::pow(1 - x / (d / 2.0), 3.0);
    } else if (name == "bohman") {
      const double fac = std::fabs(-1.0 + 2.0 * n / (d - 1));
      v = i == 0 || i == m - 1 ? 0.0 : (1 - fac) * std::cos(kPi * fac) + 1.0 / kPi * std::sin(kPi * fac);
    } else if (name == "barthann") {
      const double fac = std::fabs(n / (d - 1.0) - 0.5);
      v = 0.62 - 0.48 * fac + 0.38 * std::cos(2 * kPi * fac);
    } else if (name == "cosine") {
      v = std::sin(kPi / d * (n + 0.5));
    } else if (name == "exponential") {  // center (m - 1) / 2, tau 1
      v = std::exp(-std::fabs(n - (d - 1) / 2));
    } else if (name == "tukey") {  // alpha 0.5
      const auto width = static_cast<std::int64_t>(std::floor(0.5 * (d - 1) / 2.0));
      if (i <= width) v = 0.5 * (1 + std::cos(kPi * (-1 + 2.0 * n / 0.5 / (d - 1))));
      else if (i >= m - width - 1) v = 0.5 * (1 + std::cos(kPi * (-2.0 / 0.5 + 1 + 2.0 * n / 0.5 / (d - 1))));
    } else if (name == "lanczos") {
      v = sinc(2.0 * n / (d - 1) - 1.0);
    }  // boxcar: ones
  }
  return w;
}

// scipy.signal.get_window(name, n, fftbins=periodic) for the windows it makes without
// parameters, under any of SciPy's names (and Strata's older "hanning"), a "_symmetric" or
// "_periodic" suffix overriding `periodic`; a periodic window is the symmetric one of n + 1
// points without its last. Those SciPy needs parameters for (kaiser, gaussian, ...) fail, as
// in Keras.
std::vector<double> window_values(const std::string& requested, std::int64_t n, bool periodic) {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kNames = {
      {"barthann", {"barthann", "brthan", "bth"}},    {"bartlett", {"bartlett", "bart", "brt"}},
      {"blackman", {"blackman", "black", "blk"}},     {"blackmanharris", {"blackmanharris", "blackharr", "bkh"}},
      {"bohman", {"bohman", "bman", "bmn"}},          {"boxcar", {"boxcar", "box", "ones", "rect", "rectangular"}},
      {"cosine", {"cosine", "halfcosine"}},           {"exponential", {"exponential", "poisson"}},
      {"flattop", {"flattop", "flat", "flt"}},        {"hamming", {"hamming", "hamm", "ham"}},
      {"hann", {"hann", "han", "hanning"}},           {"lanczos", {"lanczos", "sinc"}},
      {"nuttall", {"nuttall", "nutl", "nut"}},        {"parzen", {"parzen", "parz", "par"}},
      {"taylor", {"taylor", "taylorwin"}},            {"triangle", {"triangle", "triang", "tri"}},
      {"tukey", {"tukey", "tuk"}}};
  std::string name = requested;
  const auto strip = [&](const std::string& suffix) {
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      name.resize(name.size() - suffix.size());
      return true;
    }
    return false;
  };
  if (strip("_symmetric")) periodic = false;
  else if (strip("_periodic")) periodic = true;
  std::string canonical;
  for (const auto& [c, aliases] : kNames)
    if (std::find(aliases.begin(), aliases.end(), name) != aliases.end()) canonical = c;
  if (canonical.empty()) {
    throw NotImplementedError("window \"" + requested + "\" is not supported (SciPy's windows without parameters: "
                              "hann, hamming, blackman, boxcar, bartlett, triang, flattop, parzen, bohman, "
                              "blackmanharris, nuttall, barthann, cosine, exponential, tukey, taylor, lanczos)");
  }
  if (n <= 1) return std::vector<double>(static_cast<std::size_t>(n), 1.0);  // SciPy's guard, before extending
  const std::int64_t m = periodic ? n + 1 : n;
  std::vector<double> w = symmetric_window(canonical, m);
  w.resize(static_cast<std::size_t>(n));
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
    if (options.mode == "angle") {
      y = ops::arctan2(im, re);
    } else if (options.mode == "stft") {
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
