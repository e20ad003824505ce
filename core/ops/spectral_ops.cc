#include "core/ops/spectral_ops.h"

#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/register.h"
#include "core/ops/scan_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

using Dims = std::vector<std::int64_t>;

void expect_length(const std::string& op, std::int64_t n) {
  if (n == kUnknownDim) throw ShapeError(op + ": the transform's length must be known");
  if (n < 1) throw ShapeError(op + ": a transform of length " + std::to_string(n));
}

// The spectrum's bins that stand for two of the full spectrum's (k and n − k: 0 < k < n/2,
// and for odd n every k > 0; axis -2) times `scale`, bin 0 and an even n's bin n/2 as they
// are: the weights that make rfft and irfft of length n each other's adjoints.
Output scale_paired_bins(Output spectrum, std::int64_t n, float scale) {
  const Shape& s = spectrum.shape();
  const int rank = s.rank();
  const std::int64_t bins = s[rank - 2];
  const std::int64_t unpaired_end = n % 2 == 0 ? 1 : 0;  // the Nyquist bin, last, for even n
  if (bins - 1 - unpaired_end <= 0) return spectrum;
  std::vector<std::int64_t> none(static_cast<std::size_t>(rank), 0), first = none, paired_before = none,
                                                                      paired_after = none, last = none;
  first[static_cast<std::size_t>(rank - 2)] = bins - 1;  // crop after: keeps bin 0
  paired_before[static_cast<std::size_t>(rank - 2)] = 1;
  paired_after[static_cast<std::size_t>(rank - 2)] = unpaired_end;
  std::vector<Output> parts{crop(spectrum, none, first), mul(crop(spectrum, paired_before, paired_after), scale)};
  if (unpaired_end) {
    last[static_cast<std::size_t>(rank - 2)] = bins - 1;  // crop before: keeps bin n/2
    parts.push_back(crop(spectrum, last, none));
  }
  return concat(parts, rank - 2);
}

}  // namespace

void register_spectral_ops(OpRegistry& r) {
  r.add({.name = "rfft",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() < 1) throw ShapeError("rfft: a signal of rank 0");
           expect_length("rfft", x[x.rank() - 1]);
           Dims d = x.dims();
           d.back() = d.back() / 2 + 1;
           d.push_back(2);
           return std::vector<TensorSpec>{{Shape(d), DType::float32}};
         },
         // The adjoint of rfft: irfft with the inner bins halved.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Shape& x = n.inputs[0].shape();
           const std::int64_t length = x[x.rank() - 1];
           return std::vector<Output>{irfft(scale_paired_bins(g[0], length, 0.5f), length)};
         }});
  r.add({.name = "irfft",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& s = ctx.inputs[0].shape;
           const std::int64_t n = ctx.attrs.get<std::int64_t>("n");
           expect_length("irfft", n);
           const bool bins_ok = s.rank() >= 2 && (s[s.rank() - 2] == kUnknownDim || s[s.rank() - 2] == n / 2 + 1);
           if (!bins_ok || s[s.rank() - 1] != 2) {
             throw ShapeError("irfft: a spectrum of length " + std::to_string(n) + " is (..., " +
                              std::to_string(n / 2 + 1) + ", 2), got " + s.to_string());
           }
           Dims d(s.dims().begin(), s.dims().end() - 2);
           d.push_back(n);
           return std::vector<TensorSpec>{{Shape(d), DType::float32}};
         },
         // The adjoint of irfft: rfft with the inner bins doubled.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{scale_paired_bins(rfft(g[0]), n.attrs.get<std::int64_t>("n"), 2.0f)};
         }});
}

Output rfft(Output x) { return x.graph->add("rfft", {x}); }
Output irfft(Output spectrum, std::int64_t n) { return spectrum.graph->add("irfft", {spectrum}, Attrs{{"n", n}}); }

Output frames(Output x, std::int64_t length, std::int64_t step) {
  const Shape& s = x.shape();
  const int rank = s.rank();
  if (rank < 1) throw ShapeError("frames: needs a signal of rank 1 or more, got a scalar");
  const std::int64_t n = s[rank - 1];
  if (n == kUnknownDim) throw ShapeError("frames: the signal's length (last axis) must be known, got " + s.to_string());
  if (length < 1 || step < 1) {
    throw ValueError("frames: length and step must be positive, got " + std::to_string(length) + " and " +
                     std::to_string(step));
  }
  if (n < length) {
    throw ShapeError("frames: a signal of " + std::to_string(n) + " samples holds no frame of " +
                     std::to_string(length) + " (" + s.to_string() + ")");
  }
  const std::int64_t count = 1 + (n - length) / step;
  // Rows of `step` samples; frame f is rows f .. f + per − 1 side by side, cut to `length`.
  const std::int64_t per = (length + step - 1) / step, rows = count - 1 + per;
  Output flat = rank == 1 ? expand_dims(x, 0) : (rank == 2 ? x : merge_axes(x, 0, rank - 1));
  if (rows * step > n) {
    flat = pad(flat, {0, 0}, {0, rows * step - n});
  } else if (rows * step < n) {
    flat = crop(flat, {0, 0}, {0, n - rows * step});
  }
  const Output grid = split_axis(flat, 1, {rows, step});
  std::vector<Output> parts;
  for (std::int64_t j = 0; j < per; ++j) parts.push_back(crop(grid, {0, j, 0}, {0, per - 1 - j, 0}));
  Output y = parts.size() == 1 ? parts[0] : concat(parts, 2);
  if (per * step > length) y = crop(y, {0, 0, 0}, {0, 0, per * step - length});
  if (rank == 1) return reshape(y, {count, length});
  if (rank == 2) return y;
  std::vector<std::int64_t> dims;
  for (int a = 0; a < rank - 1; ++a) dims.push_back(dim_from(a, 1));
  dims.push_back(count);
  dims.push_back(length);
  return reshape(y, dims, {x});
}

namespace {

// NumPy's and TensorFlow's "reflect" padding of the last axis by `width` on both sides.
Output reflect_pad_last_axis(Output x, std::int64_t width) {
  const int last = x.shape().rank() - 1;
  const std::int64_t n = x.shape()[last];
  if (width == 0) return x;
  if (n == kUnknownDim || width >= n) {
    throw ShapeError("stft: reflect padding by " + std::to_string(width) +
                     " needs a known last axis longer than that, got " + x.shape().to_string());
  }
  auto cut = [&](std::int64_t before, std::int64_t after) {
    std::vector<std::int64_t> b(static_cast<std::size_t>(last + 1), 0), a(b);
    b.back() = before;
    a.back() = after;
    return reverse(crop(x, b, a), last);
  };
  return concat({cut(1, n - 1 - width), x, cut(n - 1 - width, 1)}, last);
}

}  // namespace

Output stft(Output x, Output window, std::int64_t fft_length, std::int64_t step, bool center) {
  if (center) x = reflect_pad_last_axis(x, fft_length / 2);
  Output f = frames(x, fft_length, step);
  if (window.valid()) f = mul(f, window);
  return rfft(f);
}

Tensor stft_window(const std::string& name, std::int64_t length, std::int64_t fft_length) {
  if (name != "hann" && name != "hamming") {
    throw ValueError("stft: window must be \"hann\" or \"hamming\", got \"" + name + "\"");
  }
  if (length < 1 || fft_length < length) {
    throw ValueError("stft: a window of " + std::to_string(length) + " in " + std::to_string(fft_length) + " samples");
  }
  Tensor w(Shape{fft_length});
  float* out = w.data<float>();
  for (std::int64_t i = 0; i < fft_length; ++i) out[i] = 0.0f;
  const std::int64_t left = (fft_length - length) / 2;
  if (length == 1) {
    out[left] = 1.0f;
    return w;
  }
  const float a = name == "hann" ? 0.5f : 0.54f, b = name == "hann" ? 0.5f : 0.46f;
  // TensorFlow's raised cosine: divided by length − 1, or by length when periodic and even.
  const float n = static_cast<float>(length % 2 == 0 ? length : length - 1);
  const float two_pi = static_cast<float>(2.0 * 3.14159265358979323846);
  for (std::int64_t i = 0; i < length; ++i) out[left + i] = a - b * std::cos(two_pi * static_cast<float>(i) / n);
  return w;
}

}  // namespace strata::ops
