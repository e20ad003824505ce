// GaussianNoise, GaussianDropout, AlphaDropout and SpatialDropout3D: the identity in
// inference, Keras's distributions in training (checked statistically: every tolerance is
// four to five standard errors of the statistic at the sample size used, so a correct
// layer fails about once in 10^4 runs of a new seed; the seeds here are fixed), and
// draws that depend on (seed, step) only, as Dropout's masks do.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/program.h"
#include "layers/core/input_layer.h"
#include "layers/regularization/alpha_dropout.h"
#include "layers/regularization/gaussian_dropout.h"
#include "layers/regularization/gaussian_noise.h"
#include "layers/regularization/spatial_dropout.h"

using namespace strata;
using namespace strata::layers;

namespace noise_layers_test {

namespace {

Tensor run(const Layer& layer, const Tensor& x, bool training, std::int64_t step = 0) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x}, {.training = training, .step = step})[0];
}

Tensor normal_tensor(Shape shape, unsigned seed) {
  Tensor t(shape);
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal;
  for (float& v : t.values<float>()) v = normal(gen);
  return t;
}

struct Moments {
  double mean = 0, variance = 0;
  double within_one = 0, beyond_two = 0, beyond_three = 0;  // fractions, in standard deviations `sd`
};

Moments moments_of(const std::vector<double>& v, double sd) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= static_cast<double>(v.size());
  for (double x : v) {
    m.variance += (x - m.mean) * (x - m.mean);
    const double z = std::fabs(x) / sd;
    m.within_one += z < 1;
    m.beyond_two += z > 2;
    m.beyond_three += z > 3;
  }
  const auto n = static_cast<double>(v.size());
  m.variance /= n;
  m.within_one /= n;
  m.beyond_two /= n;
  m.beyond_three /= n;
  return m;
}

// A zero-mean normal sample of standard deviation sd: mean, variance and the masses
// within one and beyond two and three standard deviations (0.6827, 0.0455, 0.0027), each
// within 4.5 standard errors at n samples.
void expect_normal(const std::vector<double>& v, double sd) {
  const auto n = static_cast<double>(v.size());
  const Moments m = moments_of(v, sd);
  const double k = 4.5;
  EXPECT_NEAR(m.mean, 0.0, k * sd / std::sqrt(n));
  EXPECT_NEAR(m.variance, sd * sd, k * sd * sd * std::sqrt(2.0 / n));
  auto mass = [&](double got, double p, const char* what) {
    EXPECT_NEAR(got, p, k * std::sqrt(p * (1 - p) / n)) << what;
  };
  mass(m.within_one, 0.682689, "within one standard deviation");
  mass(m.beyond_two, 0.045500, "beyond two standard deviations");
  mass(m.beyond_three, 0.002700, "beyond three standard deviations");
}

std::vector<double> minus(const Tensor& a, const Tensor& b) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < a.size(); ++i) out.push_back(static_cast<double>(a.item(i)) - b.item(i));
  return out;
}

}  // namespace

TEST(GaussianNoise, IsTheIdentityInInference) {
  GaussianNoise noise(0.5, {.seed = 1});
  noise(Input({50}));
  const Tensor x = normal_tensor({4, 50}, 1);
  EXPECT_EQ(run(noise, x, false).to_vector<float>(), x.to_vector<float>());
}

TEST(GaussianNoise, AddsZeroMeanNormalNoiseOfItsStddevInTraining) {
  GaussianNoise noise(0.5, {.seed = 7});
  noise(Input({20000}));
  const Tensor x = normal_tensor({2, 20000}, 2);  // the noise does not depend on x
  expect_normal(minus(run(noise, x, true), x), 0.5);
}

TEST(GaussianNoise, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = Tensor::filled({2, 500}, 0.f);
  auto layer = [](std::uint64_t seed) {
    GaussianNoise l(0.3, {.seed = seed});
    l(Input({500}));
    return l;
  };
  // A fresh layer and program with the same seed at the same step draw the same noise
  // (a resumed run continues as the uninterrupted one); another step or seed other noise.
  const Tensor a = run(layer(11), x, true, 5);
  EXPECT_EQ(run(layer(11), x, true, 5).to_vector<float>(), a.to_vector<float>());
  EXPECT_NE(run(layer(11), x, true, 6).to_vector<float>(), a.to_vector<float>());
  EXPECT_NE(run(layer(12), x, true, 5).to_vector<float>(), a.to_vector<float>());
}

TEST(GaussianNoise, RefusesAStddevOutsideKerasRange) {
  EXPECT_THROW(GaussianNoise(-0.1), ValueError);
  EXPECT_THROW(GaussianNoise(1.5), ValueError);
  GaussianNoise none(0.0);
  none(Input({3}));
  const Tensor x = normal_tensor({2, 3}, 3);
  EXPECT_EQ(run(none, x, true).to_vector<float>(), x.to_vector<float>());
}

TEST(GaussianDropout, IsTheIdentityInInference) {
  GaussianDropout drop(0.4, {.seed = 1});
  drop(Input({50}));
  const Tensor x = normal_tensor({4, 50}, 4);
  EXPECT_EQ(run(drop, x, false).to_vector<float>(), x.to_vector<float>());
}

TEST(GaussianDropout, MultipliesByOneCentredNormalNoiseInTraining) {
  // rate 0.2: the factor's standard deviation is sqrt(0.2 / 0.8) = 0.5.
  GaussianDropout drop(0.2, {.seed = 9});
  drop(Input({20000}));
  const Tensor ones = Tensor::filled({2, 20000}, 1.f);
  expect_normal(minus(run(drop, ones, true), ones), 0.5);
  EXPECT_THROW(GaussianDropout(1.0), ValueError);
  EXPECT_THROW(GaussianDropout(-0.5), ValueError);
}

TEST(GaussianDropout, GradientIsTheStepsNoiseFactor) {
  GaussianDropout drop(0.3, {.seed = 2});
  drop(Input({64}));
  const Tensor x = normal_tensor({3, 64}, 5);
  Graph g;
  Output in = g.placeholder({Shape{kUnknownDim, 64}});
  Output y = drop.impl().call(g, {in})[0];
  Output dx = gradients(ops::reduce_sum(y), {in})[0];
  Program p(g, {in}, {y, dx});
  const auto out = p.run({x}, {.training = true, .step = 3});
  for (std::int64_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(out[1].item(i) * x.item(i), out[0].item(i), 1e-5f * (1.f + std::fabs(out[0].item(i)))) << i;
  }
}

TEST(AlphaDropout, IsTheIdentityInInference) {
  AlphaDropout drop(0.3, {.seed = 1});
  drop(Input({50}));
  const Tensor x = normal_tensor({4, 50}, 6);
  EXPECT_EQ(run(drop, x, false).to_vector<float>(), x.to_vector<float>());
}

TEST(AlphaDropout, DropsToTheSaturationValueAndKeepsMeanAndVariance) {
  const double rate = 0.25, alpha_p = -1.6732632423543772 * 1.0507009873554805;
  const double a = std::pow((1 - rate) * (1 + rate * alpha_p * alpha_p), -0.5), b = -a * alpha_p * rate;
  AlphaDropout drop(rate, {.seed = 4});
  drop(Input({20000}));
  const Tensor x = normal_tensor({2, 20000}, 7);
  const Tensor y = run(drop, x, true);
  const auto n = static_cast<double>(x.size());
  double dropped = 0, mean = 0, square = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double v = y.item(i);
    const bool is_dropped = std::fabs(v - (a * alpha_p + b)) < 1e-6;
    // Every element is either the dropped value or a·x + b.
    if (!is_dropped) EXPECT_NEAR(v, a * x.item(i) + b, 1e-5) << i;
    dropped += is_dropped;
    mean += v;
    square += v * v;
  }
  mean /= n;
  const double variance = square / n - mean * mean;
  EXPECT_NEAR(dropped / n, rate, 4.5 * std::sqrt(rate * (1 - rate) / n));
  // A standardized input stays standardized (the layer's purpose); the output's variance
  // has a standard error of about sqrt(2 / n) (its kurtosis is near a normal's).
  EXPECT_NEAR(mean, 0.0, 4.5 / std::sqrt(n));
  EXPECT_NEAR(variance, 1.0, 4.5 * std::sqrt(2.5 / n));
}

TEST(AlphaDropout, NoiseShapeSharesOneDrawAlongItsOnes) {
  AlphaDropout drop(0.5, {.noise_shape = Shape{kUnknownDim, 1, 4}, .seed = 3});
  drop(Input({3, 4}));
  const Tensor zeros = Tensor::filled({16, 3, 4}, 0.f);
  const auto v = run(drop, zeros, true).to_vector<float>();
  const double alpha_p = -1.6732632423543772 * 1.0507009873554805;
  const double a = std::pow(0.5 * (1 + 0.5 * alpha_p * alpha_p), -0.5), b = -a * alpha_p * 0.5;
  int dropped = 0;
  for (int s = 0; s < 16; ++s) {
    for (int c = 0; c < 4; ++c) {
      const float first = v[static_cast<std::size_t>((s * 3) * 4 + c)];
      for (int t = 1; t < 3; ++t) EXPECT_EQ(v[static_cast<std::size_t>((s * 3 + t) * 4 + c)], first) << s << " " << c;
      const bool is_dropped = std::fabs(first - (a * alpha_p + b)) < 1e-6;
      EXPECT_TRUE(is_dropped || std::fabs(first - b) < 1e-6) << first;  // a·0 + b when kept
      dropped += is_dropped;
    }
  }
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 64);
  EXPECT_THROW(AlphaDropout(0.5, {.noise_shape = Shape{kUnknownDim, 2, 4}})(Input({3, 4})), ShapeError);
  EXPECT_THROW(AlphaDropout(1.0), ValueError);
}

TEST(AlphaDropout, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = normal_tensor({2, 300}, 8);
  auto layer = [](std::uint64_t seed) {
    AlphaDropout l(0.4, {.seed = seed});
    l(Input({300}));
    return l;
  };
  const Tensor a = run(layer(21), x, true, 2);
  EXPECT_EQ(run(layer(21), x, true, 2).to_vector<float>(), a.to_vector<float>());
  EXPECT_NE(run(layer(21), x, true, 3).to_vector<float>(), a.to_vector<float>());
  EXPECT_NE(run(layer(22), x, true, 2).to_vector<float>(), a.to_vector<float>());
}

TEST(SpatialDropout3D, DropsWholeChannelsInTrainingOnly) {
  for (const std::string format : {"channels_last", "channels_first"}) {
    SCOPED_TRACE(format);
    const bool first = format == "channels_first";
    SpatialDropout3D drop(0.5, {.data_format = format, .seed = 5});
    const Shape sample = first ? Shape{64, 2, 3, 2} : Shape{2, 3, 2, 64};
    drop(Input(sample));
    const Tensor ones = Tensor::filled(sample.with_batch(4), 1.f);
    const Tensor inference = run(drop, ones, false);
    for (std::int64_t i = 0; i < inference.size(); ++i) ASSERT_EQ(inference.item(i), 1.f);
    const Tensor y = run(drop, ones, true);
    int dropped = 0;
    for (int n = 0; n < 4; ++n) {
      for (int c = 0; c < 64; ++c) {
        auto at = [&](int s) { return y.item(n * 768 + (first ? c * 12 + s : s * 64 + c)); };
        for (int s = 1; s < 12; ++s) ASSERT_EQ(at(s), at(0)) << "one value per channel";
        EXPECT_TRUE(at(0) == 0.f || at(0) == 2.f);
        dropped += at(0) == 0.f;
      }
    }
    // 256 channels at rate 0.5: 128 ± 4.5 · 8.
    EXPECT_NEAR(dropped, 128, 36);
  }
  EXPECT_THROW(SpatialDropout3D(0.5)(Input({4, 4, 3})), ShapeError);
}

}  // namespace noise_layers_test
