// keras.ops signal operations (issue #38) on Strata's real tensors, a complex tensor being
// Keras's (real, imag) pair: rfft, irfft, fft, fft2, ifft2, stft, istft and extract_sequences, as
// Keras's TensorFlow backend computes them, composed of the rfft / irfft ops
// (core/ops/spectral_ops.h: KISS FFT on the CPU, cuFFT on CUDA) and array ops, so each runs
// on every device those run on and has their gradients, for even and odd transform
// lengths. real, imag, conj and angle of a real tensor:
// itself, zeros, itself, and π where it is negative (0 elsewhere), as TensorFlow's. And
// cdist, the pairwise Euclidean distances, with Keras's formula.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/scan_ops.h"
#include "core/ops/spectral_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;
using Complex = std::pair<Output, Output>;  // (real, imag)

int last_axis_of(const Output& x) { return x.shape().rank() - 1; }

// A non-batch last axis whose length is known.
std::int64_t transform_length(C c, const Output& x, int axis) {
  if (axis < 1) throw NotImplementedError(c.where + ": transforming the batch axis is not supported");
  const std::int64_t n = known_size(c, "x", x, axis);
  if (n < 1) throw ValueError(c.where + ": a transform of length " + std::to_string(n));
  return n;
}

// The (real, imag) halves of rfft's (..., bins, 2).
Complex halves(C c, const Output& spectrum) {
  const int last = last_axis_of(spectrum);
  return {drop_axis(slice(spectrum, last, 0, 1), last, c.where), drop_axis(slice(spectrum, last, 1, 2), last, c.where)};
}

// x (..., n) cut or zero-padded to n samples along the last axis, as tf.signal.rfft's fft_length.
Output to_length(Output x, std::int64_t n) {
  const int last = last_axis_of(x);
  const std::int64_t have = x.shape()[last];
  std::vector<std::int64_t> before(static_cast<std::size_t>(last + 1), 0), after(before);
  if (have == n) return x;
  after.back() = have > n ? have - n : n - have;
  return have > n ? ops::crop(x, before, after) : ops::pad(x, before, after);
}

// The full spectrum (..., n) of a real signal: rfft's bins 0 .. n/2, then the conjugates of
// bins n − n/2 − 1 .. 1 (n/2 − 1 .. 1 for even n, n/2 .. 1 for odd).
Complex fft_of_real(C c, const Output& x, std::int64_t n) {
  Complex h = halves(c, ops::rfft(x));
  const std::int64_t mirrored = n - (n / 2 + 1);
  if (mirrored == 0) return h;
  const int last = last_axis_of(x);
  const Output re = ops::reverse(slice(h.first, last, 1, 1 + mirrored), last);
  const Output im = ops::neg(ops::reverse(slice(h.second, last, 1, 1 + mirrored), last));
  return {ops::concat({h.first, re}, last), ops::concat({h.second, im}, last)};
}

// tf.signal.fft of re + i·im along the last axis: FFT(re) + i·FFT(im).
Complex fft_last(C c, const Complex& x) {
  const std::int64_t n = transform_length(c, x.first, last_axis_of(x.first));
  const Complex a = fft_of_real(c, x.first, n), b = fft_of_real(c, x.second, n);
  return {ops::sub(a.first, b.second), ops::add(a.second, b.first)};
}

Complex pair_argument(C c) {
  if (c.args.empty() || c.args[0].size() != 2)
    throw ValueError(c.where + ": expects a (real, imag) pair of tensors as its argument");
  const Output re = c.args[0][0], im = c.args[0][1];
  if (re.shape() != im.shape())
    throw ShapeError(c.where + ": real " + re.shape().to_string() + " and imag " + im.shape().to_string() +
                     " must have one shape");
  return {re, im};
}

Output swap_last_two(const Output& x) {
  const int rank = x.shape().rank();
  std::vector<std::int64_t> perm;
  for (int a = 0; a < rank; ++a) perm.push_back(a);
  std::swap(perm[static_cast<std::size_t>(rank - 1)], perm[static_cast<std::size_t>(rank - 2)]);
  return ops::transpose(x, perm);
}

// tf.signal.fft2d: the last axis, then the one before it.
Complex fft_last_two(C c, const Complex& x) {
  if (x.first.shape().rank() < 3)
    throw NotImplementedError(c.where + ": needs rank 3 or more (the batch and two transformed axes), got " +
                              x.first.shape().to_string());
  const Complex rows = fft_last(c, x);
  const Complex cols = fft_last(c, {swap_last_two(rows.first), swap_last_two(rows.second)});
  return {swap_last_two(cols.first), swap_last_two(cols.second)};
}

std::vector<Output> listed(const Complex& x) { return {x.first, x.second}; }

std::vector<Output> rfft_op(C c) {
  Output x = c.arg(0);
  const int last = last_axis_of(x);
  if (c.has("fft_length")) x = to_length(x, static_cast<std::int64_t>(c.number("fft_length")));
  transform_length(c, x, last);
  return listed(halves(c, ops::rfft(x)));
}

// tf.signal.irfft: the first fft_length / 2 + 1 bins (cut or zero-padded), 1/n normalized.
Output irfft_op(C c) {
  Complex x = pair_argument(c);
  const int last = last_axis_of(x.first);
  const std::int64_t bins = known_size(c, "x", x.first, last);
  const std::int64_t n = c.has("fft_length") ? static_cast<std::int64_t>(c.number("fft_length")) : 2 * (bins - 1);
  if (n < 1) throw ValueError(c.where + ": fft_length " + std::to_string(n) + " (a spectrum of one bin needs it given)");
  const Output re = to_length(x.first, n / 2 + 1), im = to_length(x.second, n / 2 + 1);
  const Output spectrum = ops::concat({ops::expand_dims(re, -1), ops::expand_dims(im, -1)}, last + 1);
  return ops::div(ops::irfft(spectrum, n), static_cast<float>(n));
}

std::vector<Output> fft_op(C c) { return listed(fft_last(c, pair_argument(c))); }
std::vector<Output> fft2_op(C c) { return listed(fft_last_two(c, pair_argument(c))); }

// Keras's ifft2: conj(fft2(conj(x))) / (h · w).
std::vector<Output> ifft2_op(C c) {
  const Complex x = pair_argument(c);
  const Complex y = fft_last_two(c, {x.first, ops::neg(x.second)});
  const auto& s = x.first.shape();
  const float size = static_cast<float>(s[s.rank() - 1] * s[s.rank() - 2]);
  return {ops::div(y.first, size), ops::div(ops::neg(y.second), size)};
}

std::int64_t positive(C c, const std::string& key) {
  const double v = c.number(key);
  if (v < 1 || v != static_cast<double>(static_cast<std::int64_t>(v))) refuse(c, key, "a positive integer is needed");
  return static_cast<std::int64_t>(v);
}

// keras.ops.stft: Keras's TensorFlow backend's (core/ops/spectral_ops.h's ops::stft).
std::vector<Output> stft_op(C c) {
  const Output x = c.arg(0);
  if (x.shape().rank() < 2)
    throw NotImplementedError(c.where + ": needs a batch of signals, got " + x.shape().to_string());
  const std::int64_t length = positive(c, "sequence_length"), step = positive(c, "sequence_stride");
  const std::int64_t fft = positive(c, "fft_length");
  if (fft < length)
    throw ValueError(c.where + ": `fft_length` must equal or larger than `sequence_length`. Received: " +
                     "sequence_length=" + std::to_string(length) + ", fft_length=" + std::to_string(fft));
  const bool center = !c.has("center") || c.flag("center");
  Output window;
  if (c.has("window")) {
    const auto* name = std::get_if<std::string>(&c.attrs.at("window"));
    if (!name) refuse(c, "window", "a window given as values is not supported (\"hann\", \"hamming\" or None are)");
    if (*name != "hann" && *name != "hamming") refuse(c, "window", "must be one of \"hann\", \"hamming\" or None");
    window = c.graph.variable(Variable(c.where + "/window", ops::stft_window(*name, length, fft), false));
  }
  if (center && known_size(c, "x", x, last_axis_of(x)) <= fft / 2)
    throw ValueError(c.where + ": reflect padding by fft_length / 2 = " + std::to_string(fft / 2) +
                     " needs a longer signal, got " + x.shape().to_string());
  return listed(halves(c, ops::stft(x, window, fft, step, center)));
}

// The frames (..., frames, length) overlapped every `step` samples and added, as
// tf.signal.overlap_and_add: (..., (frames − 1) · step + length). Each frame is cut into
// ceil(length / step) blocks of `step` samples; block j of frame f lands on output block f + j,
// so the sum is one pad along the frames axis per block index.
Output overlap_and_add(C c, const Output& frames, std::int64_t step) {
  const int rank = rank_of(frames);
  const std::int64_t count = known_size(c, "x", frames, rank - 2), length = frames.shape()[rank - 1];
  const std::int64_t blocks = (length + step - 1) / step;
  std::vector<std::int64_t> none(static_cast<std::size_t>(rank), 0), tail = none;
  tail.back() = blocks * step - length;
  std::vector<std::int64_t> split = reshape_target(frames.shape(), c.where);
  split.back() = blocks;
  split.push_back(step);
  const Output cut = ops::reshape(ops::pad(frames, none, tail), split);  // (..., frames, blocks, step)
  Output sum;
  for (std::int64_t j = 0; j < blocks; ++j) {
    const Output block = drop_axis(slice(cut, rank - 1, j, j + 1), rank - 1, c.where);  // (..., frames, step)
    std::vector<std::int64_t> before(static_cast<std::size_t>(rank), 0), after = before;
    before[static_cast<std::size_t>(rank - 2)] = j;
    after[static_cast<std::size_t>(rank - 2)] = blocks - 1 - j;
    const Output placed = ops::pad(block, before, after);  // (..., frames + blocks − 1, step)
    sum = sum.valid() ? ops::add(sum, placed) : placed;
  }
  std::vector<std::int64_t> joined = reshape_target(sum.shape(), c.where);
  joined.pop_back();
  joined.back() = (count + blocks - 1) * step;
  std::vector<std::int64_t> extra(static_cast<std::size_t>(rank - 1), 0);
  const Output flat = ops::reshape(sum, joined);
  extra.back() = (count + blocks - 1) * step - ((count - 1) * step + length);
  return ops::crop(flat, std::vector<std::int64_t>(extra.size(), 0), extra);
}

// keras.ops.istft as Keras's TensorFlow backend computes it (tf.signal.inverse_stft): each
// frame's irfft of fft_length samples, times the window (sequence_length samples centred in
// fft_length by zeros) divided by the sum of the squared windows that overlap each sample
// (tf.signal.inverse_stft_window_fn; without a window, neither), overlapped and added; then
// the centre padding's fft_length / 2 samples cut from the start, and from the end too unless
// `length` gives the result's length.
Output istft_op(C c) {
  const Complex x = pair_argument(c);
  if (rank_of(x.first) < 3)
    throw NotImplementedError(c.where + ": needs a batch of frames (rank 3 or more), got " +
                              x.first.shape().to_string());
  const std::int64_t length = positive(c, "sequence_length"), step = positive(c, "sequence_stride");
  const std::int64_t fft = positive(c, "fft_length");
  if (fft < length)
    throw ValueError(c.where + ": fft_length " + std::to_string(fft) + " must be at least sequence_length " +
                     std::to_string(length));
  const int last = last_axis_of(x.first);
  known_size(c, "x", x.first, last);
  const Output re = to_length(x.first, fft / 2 + 1), im = to_length(x.second, fft / 2 + 1);
  const Output spectrum = ops::concat({ops::expand_dims(re, -1), ops::expand_dims(im, -1)}, last + 1);
  Output frames = ops::div(ops::irfft(spectrum, fft), static_cast<float>(fft));
  const bool center = !c.has("center") || c.flag("center");
  const bool absent = c.attrs.count("window") == 0;  // Keras's default, "hann"; None is saved as null
  if (absent || c.has("window")) {
    const std::string* name = absent ? nullptr : std::get_if<std::string>(&c.attrs.at("window"));
    static const std::string hann = "hann";
    if (absent) name = &hann;
    if (!name) refuse(c, "window", "a window given as values is not supported (\"hann\", \"hamming\" or None are)");
    if (*name != "hann" && *name != "hamming") refuse(c, "window", "must be one of \"hann\", \"hamming\" or None");
    // tf.signal.inverse_stft_window_fn in float32: the squared window summed over the frames
    // that overlap each sample (its fft_length samples folded every step), a zero sum giving
    // NaN where the window is 0, as TensorFlow's.
    const Tensor forward = ops::stft_window(*name, length, fft);
    const float* w = forward.data<float>();
    const std::int64_t overlaps = (fft + step - 1) / step;
    std::vector<float> denominator(static_cast<std::size_t>(step), 0.f), inverse(static_cast<std::size_t>(fft));
    for (std::int64_t o = 0; o < overlaps; ++o)
      for (std::int64_t i = 0; i < step; ++i) {
        const std::int64_t t = o * step + i;
        const float v = t < fft ? w[t] : 0.f;
        denominator[static_cast<std::size_t>(i)] += v * v;
      }
    for (std::int64_t t = 0; t < fft; ++t)
      inverse[static_cast<std::size_t>(t)] = w[t] / denominator[static_cast<std::size_t>(t % step)];
    const Tensor window = Tensor::from_vector(Shape{fft}, inverse);
    frames = ops::mul(frames, c.graph.variable(Variable(c.where + "/inverse_window", window, false)));
  }
  const Output signal = overlap_and_add(c, frames, step);
  const std::int64_t total = signal.shape()[last - 1];
  const std::int64_t start = center ? fft / 2 : 0;
  std::int64_t end = total;
  if (c.has("length")) end = std::min(total, start + static_cast<std::int64_t>(positive(c, "length")));
  else if (center) end = total - fft / 2;
  if (end <= start)
    throw ValueError(c.where + ": the frames " + x.first.shape().to_string() + " give no samples after cutting " +
                     std::to_string(start) + " from the start");
  return slice(signal, last - 1, start, end);
}

Output extract_sequences_op(C c) {
  const Output x = c.arg(0);
  if (x.shape().rank() < 2)
    throw NotImplementedError(c.where + ": needs a batch of signals, got " + x.shape().to_string());
  known_size(c, "x", x, last_axis_of(x));
  return ops::frames(x, positive(c, "sequence_length"), positive(c, "sequence_stride"));
}

// tf.math.angle of a real tensor: π where it is negative, else 0 (no gradient).
Output angle_op(C c) {
  const Output x = c.arg(0);
  return ops::mul(ops::stop_gradient(ops::less(x, ops::zeros_like(x))), 3.14159265358979323846f);
}

// keras.ops.polar: abs·cos(angle) + i·abs·sin(angle), broadcast. Strata has no complex
// dtype: the result is its (real, imag) pair along a new last axis, which only view_as_real
// may read (functional models are refused otherwise when loaded: io/model_config.cc), and
// which it passes on as Keras's float (..., 2) result.
Output polar_op(C c) {
  const Output magnitude = c.arg(0), angle = c.arg(1);
  const Output real = ops::mul(magnitude, ops::cos(angle)), imag = ops::mul(magnitude, ops::sin(angle));
  return ops::concat({ops::expand_dims(real, -1), ops::expand_dims(imag, -1)}, -1);
}

// keras.ops.view_as_complex: x[..., 0] + i x[..., 1] of x (..., 2), held as those pairs
// (Strata has no complex dtype), which only view_as_real may read, as Polar's. Keras 3.15's
// TensorFlow backend multiplies the float32 tensor by the Python 1j (TypeError), so Keras
// fails to call the model it saves; this is what the function computes called eagerly.
Output view_as_complex_op(C c) {
  const Output x = c.arg(0);
  if (x.shape().rank() < 1 || x.shape().dims().back() != 2)
    throw ValueError(c.where + ": the input's last dimension must be 2 (real and imaginary), got " +
                     x.shape().to_string());
  return ops::identity(x);
}

// keras.ops.view_as_real of Polar's, ViewAsComplex's or Eig's complex result: its (real, imag)
// pairs as they are.
Output view_as_real_op(C c) {
  const Output x = c.arg(0);
  if (x.shape().rank() < 1 || x.shape().dims().back() != 2)
    throw NotImplementedError(c.where + ": reads complex values, which Strata has only from Polar, ViewAsComplex "
                              "and Eig (as (real, imag) pairs); got " + x.shape().to_string());
  return ops::identity(x);
}

// keras.ops.cdist as Keras's TensorFlow backend: √Σ (x[..., :, None, :] − y[..., None, :, :])²
// over the last axis, the leading axes broadcast.
Output cdist_op(C c) {
  const Output x = c.arg(0), y = c.arg(1);
  const int rx = x.shape().rank(), ry = y.shape().rank();
  if (rx < 2 || ry < 2)
    throw ValueError(c.where + ": inputs to `cdist` must have rank >= 2, got " + x.shape().to_string() + " and " +
                     y.shape().to_string());
  const std::int64_t dx = x.shape()[rx - 1], dy = y.shape()[ry - 1];
  if (dx != kUnknownDim && dy != kUnknownDim && dx != dy)
    throw ValueError(c.where + ": the last dimension of inputs to `cdist` must match, got " + x.shape().to_string() +
                     " and " + y.shape().to_string());
  const Output diff = ops::sub(ops::expand_dims(x, rx - 1), ops::expand_dims(y, ry - 2));
  return ops::sqrt(ops::reduce_sum(ops::square(diff), {-1}));
}

}  // namespace

const std::map<std::string, OpFn>& signal_ops() {
  static const std::map<std::string, OpFn> t = {
      {"IRFFT", irfft_op},
      {"ISTFT", istft_op},
      {"ExtractSequences", extract_sequences_op},
      {"Real", [](C c) { return ops::identity(c.arg(0)); }},
      {"Imag", [](C c) { return ops::zeros_like(c.arg(0)); }},
      {"Conjugate", [](C c) { return ops::identity(c.arg(0)); }},
      {"Angle", angle_op},
      {"CDist", cdist_op},
      {"Polar", polar_op},
      {"ViewAsComplex", view_as_complex_op},
      {"ViewAsReal", view_as_real_op},
  };
  return t;
}

const std::map<std::string, MultiOpFn>& signal_multi_output_ops() {
  static const std::map<std::string, MultiOpFn> t = {
      {"RFFT", rfft_op}, {"FFT", fft_op}, {"FFT2", fft2_op}, {"IFFT2", ifft2_op}, {"STFT", stft_op},
  };
  return t;
}

}  // namespace strata::layers::op_detail
