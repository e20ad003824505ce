// Op cases for rfft and irfft (core/ops/spectral_ops.h): forward values against the
// discrete Fourier transform's sums written out here (in double), gradients by finite
// differences, even and odd lengths; a round trip (irfft(rfft(x)) = n · x); unknown
// lengths and mismatched spectra refused.
#include <cmath>

#include "core/ops/spectral_ops.h"
#include "op_cases.h"

namespace strata::testing::spectral_op_cases {
namespace {

using V = const std::vector<Output>&;

const double kPi = 3.14159265358979323846;

// X_k = Σ_t x_t e^{−2πi k t / n} of every row of x (..., n): (..., n/2 + 1, 2).
Tensor ref_rfft(const std::vector<Tensor>& in) {
  const Tensor& x = in[0];
  const std::int64_t n = x.shape()[x.shape().rank() - 1], bins = n / 2 + 1, rows = x.size() / n;
  std::vector<std::int64_t> dims = x.shape().dims();
  dims.back() = bins;
  dims.push_back(2);
  Tensor out{Shape(dims)};
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t k = 0; k < bins; ++k) {
      double re = 0, im = 0;
      for (std::int64_t t = 0; t < n; ++t) {
        const double v = x.data<float>()[r * n + t], a = 2 * kPi * static_cast<double>(k * t) / static_cast<double>(n);
        re += v * std::cos(a);
        im -= v * std::sin(a);
      }
      out.data<float>()[(r * bins + k) * 2] = static_cast<float>(re);
      out.data<float>()[(r * bins + k) * 2 + 1] = static_cast<float>(im);
    }
  }
  return out;
}

// x_t = Σ_k w_k Re(X_k e^{2πi k t / n}), w = 1 for bin 0 and (n even) bin n/2, 2 between.
Tensor ref_irfft(const std::vector<Tensor>& in, std::int64_t n) {
  const Tensor& s = in[0];
  const std::int64_t bins = n / 2 + 1, rows = s.size() / (2 * bins);
  std::vector<std::int64_t> dims(s.shape().dims().begin(), s.shape().dims().end() - 2);
  dims.push_back(n);
  Tensor out{Shape(dims)};
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t t = 0; t < n; ++t) {
      double v = 0;
      for (std::int64_t k = 0; k < bins; ++k) {
        const double w = k == 0 || (n % 2 == 0 && k == n / 2) ? 1 : 2;
        const double a = 2 * kPi * static_cast<double>(k * t) / static_cast<double>(n);
        const float* bin = s.data<float>() + (r * bins + k) * 2;
        v += w * (bin[0] * std::cos(a) - bin[1] * std::sin(a));
      }
      out.data<float>()[r * n + t] = static_cast<float>(v);
    }
  }
  return out;
}

GradCase forward(std::string label, Shape x, std::uint64_t seed) {
  return {std::move(label), [](Graph&, V in) { return ops::rfft(in[0]); }, {uniform(std::move(x), -1, 1, seed)},
          ref_rfft};
}

GradCase inverse(std::string label, Shape spectrum, std::int64_t n, std::uint64_t seed) {
  return {std::move(label), [n](Graph&, V in) { return ops::irfft(in[0], n); },
          {uniform(std::move(spectrum), -1, 1, seed)}, [n](const std::vector<Tensor>& in) { return ref_irfft(in, n); }};
}

const RegisterOpCases spectral_cases({
    {"rfft",
     OpCase{{forward("n 8", {8}, 3801), forward("(3, 16)", {3, 16}, 3802), forward("(2, 2, 10)", {2, 2, 10}, 3803),
             forward("odd n 7", {3, 7}, 3806), forward("odd n 1", {2, 1}, 3807)},
            [] {
              // irfft(rfft(x)) = n · x (unnormalized both ways).
              const Tensor x = uniform({4, 12}, -1, 1, 3804);
              const Tensor back = evaluate(unary([](Output v) { return ops::irfft(ops::rfft(v), 12); }), {x});
              Tensor scaled = x.clone();
              for (std::int64_t i = 0; i < scaled.size(); ++i) scaled.data<float>()[i] *= 12.f;
              EXPECT_TRUE(tensors_near(back, scaled, 1e-4f));
              // 400 samples (25 ms at 16 kHz), many rows: against the sums.
              const Tensor frames = uniform({33, 400}, -1, 1, 3805);
              EXPECT_TRUE(tensors_near(evaluate(unary([](Output v) { return ops::rfft(v); }), {frames}),
                                       ref_rfft({frames}), 1e-3f));
              // Odd lengths round trip too (the complex transform underneath).
              const Tensor odd = uniform({3, 9}, -1, 1, 3808);
              const Tensor odd_back = evaluate(unary([](Output v) { return ops::irfft(ops::rfft(v), 9); }), {odd});
              Tensor odd_scaled = odd.clone();
              for (std::int64_t i = 0; i < odd_scaled.size(); ++i) odd_scaled.data<float>()[i] *= 9.f;
              EXPECT_TRUE(tensors_near(odd_back, odd_scaled, 1e-4f));
            }}},
    {"irfft",
     OpCase{{inverse("n 8", {5, 2}, 8, 3811), inverse("(3, 16)", {3, 9, 2}, 16, 3812),
             inverse("(2, 2, 10)", {2, 2, 6, 2}, 10, 3813), inverse("odd n 7", {3, 4, 2}, 7, 3814)},
            [] {
              EXPECT_THROW(evaluate(unary([](Output v) { return ops::irfft(v, 8); }), {uniform({2, 4, 2}, -1, 1, 1)}),
                           ShapeError);
            }}},
});

}  // namespace
}  // namespace strata::testing::spectral_op_cases
