// The image augmentation layers' random behaviour: the identity in inference (RandomCrop:
// its window); in training, Keras's distributions, checked statistically (every tolerance
// is 4.5 standard errors of the statistic at the sample size used, so a correct layer
// fails about once in 10^5 runs of a new seed; the seeds here are fixed): which images
// flip, the range and mean of the contrast factors and brightness deltas, the shifts,
// zooms and crop offsets read off which pixels move or are filled; draws that depend on
// (seed, call, step) only, as Dropout's masks; gradients where Keras has them, and a
// refusal by name where Strata has none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "core/autodiff.h"
#include "core/check_gradients.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/program.h"
#include "layers/preprocessing/random_brightness.h"
#include "layers/preprocessing/random_color_degeneration.h"
#include "layers/preprocessing/random_color_jitter.h"
#include "layers/preprocessing/random_contrast.h"
#include "layers/preprocessing/random_crop.h"
#include "layers/preprocessing/random_erasing.h"
#include "layers/preprocessing/random_flip.h"
#include "layers/preprocessing/random_gaussian_blur.h"
#include "layers/preprocessing/random_grayscale.h"
#include "layers/preprocessing/random_hue.h"
#include "layers/preprocessing/random_invert.h"
#include "layers/preprocessing/random_posterization.h"
#include "layers/preprocessing/random_rotation.h"
#include "layers/preprocessing/random_saturation.h"
#include "layers/preprocessing/random_sharpness.h"
#include "layers/preprocessing/random_shear.h"
#include "layers/preprocessing/random_translation.h"
#include "layers/preprocessing/random_zoom.h"
#include "layers/preprocessing/solarization.h"

using namespace strata;
using namespace strata::layers;

namespace augmentation_layers_test {

namespace {

constexpr double kSe = 4.5;

Tensor run(const Layer& layer, const Tensor& x, bool training, std::int64_t step = 0) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  layer.impl().build({{x.shape().with_dim(0, kUnknownDim), x.dtype()}});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x}, {.training = training, .step = step})[0];
}

Tensor random_images(Shape shape, unsigned seed, float lo = 0.f, float hi = 1.f) {
  Tensor t(shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : t.values<float>()) v = u(gen);
  return t;
}

// Pixel (b, r, c, ch) of an NHWC tensor.
float at(const Tensor& t, std::int64_t b, std::int64_t r, std::int64_t c, std::int64_t ch) {
  const auto& d = t.shape().dims();
  return t.item(((b * d[1] + r) * d[2] + c) * d[3] + ch);
}

bool equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (a.item(i) != b.item(i)) return false;
  }
  return true;
}

// Whether image b of y is image b of x read through `map`: y's (r, c) is x's map(r, c).
template <class Map>
bool image_is(const Tensor& y, const Tensor& x, std::int64_t b, Map map) {
  const auto& d = y.shape().dims();
  for (std::int64_t r = 0; r < d[1]; ++r) {
    for (std::int64_t c = 0; c < d[2]; ++c) {
      const auto [sr, sc] = map(r, c);
      for (std::int64_t ch = 0; ch < d[3]; ++ch) {
        if (at(y, b, r, c, ch) != at(x, b, sr, sc, ch)) return false;
      }
    }
  }
  return true;
}

void expect_rate(double count, double n, double p, const std::string& what) {
  EXPECT_NEAR(count / n, p, kSe * std::sqrt(p * (1 - p) / n)) << what;
}

// Mean of uniform draws on [lo, hi] within 4.5 standard errors, and all of them inside.
void expect_uniform(const std::vector<double>& v, double lo, double hi, const std::string& what) {
  double mean = 0, least = hi, most = lo;
  for (double x : v) {
    mean += x;
    least = std::min(least, x);
    most = std::max(most, x);
  }
  mean /= static_cast<double>(v.size());
  const double sd = (hi - lo) / std::sqrt(12.0);
  EXPECT_NEAR(mean, (lo + hi) / 2, kSe * sd / std::sqrt(static_cast<double>(v.size()))) << what;
  EXPECT_GE(least, lo - 1e-4 * (1 + std::fabs(lo))) << what;
  EXPECT_LE(most, hi + 1e-4 * (1 + std::fabs(hi))) << what;
  // Spread over the range, not bunched: a tenth of it at each end holds about a tenth.
  double low_tail = 0;
  for (double x : v) low_tail += x < lo + 0.1 * (hi - lo);
  expect_rate(low_tail, static_cast<double>(v.size()), 0.1, what + ", lowest tenth");
}

}  // namespace

TEST(Augmentation, EveryLayerIsTheIdentityInInference) {
  const Tensor x = random_images({4, 9, 8, 3}, 1, 0.f, 255.f);
  EXPECT_TRUE(equal(run(RandomFlip(), x, false), x));
  EXPECT_TRUE(equal(run(RandomRotation(0.3), x, false), x));
  EXPECT_TRUE(equal(run(RandomZoom(0.3), x, false), x));
  EXPECT_TRUE(equal(run(RandomTranslation(0.3, 0.3), x, false), x));
  EXPECT_TRUE(equal(run(RandomContrast(0.5), x, false), x));
  EXPECT_TRUE(equal(run(RandomBrightness(0.5), x, false), x));
  EXPECT_TRUE(equal(run(RandomInvert(), x, false), x));
  EXPECT_TRUE(equal(run(RandomShear({.x_factor = 0.3, .y_factor = 0.3}), x, false), x));
  EXPECT_TRUE(equal(run(RandomGrayscale({.factor = 1.0}), x, false), x));
  EXPECT_TRUE(equal(run(Solarization({.addition_factor = 0.5, .threshold_factor = 0.5}), x, false), x));
  EXPECT_TRUE(equal(run(RandomHue(0.5), x, false), x));
  EXPECT_TRUE(equal(run(RandomErasing(), x, false), x));
  EXPECT_TRUE(equal(run(RandomGaussianBlur(), x, false), x));
  EXPECT_TRUE(equal(run(RandomSharpness(0.5), x, false), x));
  EXPECT_TRUE(equal(run(RandomPosterization(4), x, false), x));
  EXPECT_TRUE(equal(run(RandomColorJitter({.brightness_factor = 0.2, .contrast_factor = 0.3, .saturation_factor = 0.4,
                                           .hue_factor = 0.5}),
                        x, false),
                    x));
  EXPECT_TRUE(equal(run(RandomColorDegeneration(0.5), x, false), x));
  EXPECT_TRUE(equal(run(RandomSaturation(0.5), x, false), x));
  // RandomCrop: Keras's window. Of a 9 x 8 image, the largest centred 1 : 1 window is 8 x 8
  // from (0, 0); Keras takes the 6 x 6 pixels from there, no resize.
  const Tensor window = run(RandomCrop(6, 6), x, false);
  ASSERT_EQ(window.shape(), Shape({4, 6, 6, 3}));
  EXPECT_TRUE(image_is(window, x, 2, [](std::int64_t r, std::int64_t c) { return std::pair{r, c}; }));
}

TEST(RandomFlip, FlipsHalfTheImagesInTraining) {
  const Tensor x = random_images({2000, 3, 4, 1}, 2);
  const auto mirror = [](std::int64_t r, std::int64_t c) { return std::pair{r, 3 - c}; };
  const auto upside_down = [](std::int64_t r, std::int64_t c) { return std::pair{2 - r, c}; };
  const auto half_turn = [](std::int64_t r, std::int64_t c) { return std::pair{2 - r, 3 - c}; };
  const auto same = [](std::int64_t r, std::int64_t c) { return std::pair{r, c}; };
  struct M {
    std::string mode;
    std::function<std::pair<std::int64_t, std::int64_t>(std::int64_t, std::int64_t)> flipped;
  };
  for (const M& m : std::vector<M>{{"horizontal", mirror}, {"vertical", upside_down},
                                   {"horizontal_and_vertical", half_turn}}) {
    const Tensor y = run(RandomFlip({.mode = m.mode, .seed = 7}), x, true, 3);
    double flips = 0;
    for (std::int64_t b = 0; b < 2000; ++b) {
      const bool flipped = image_is(y, x, b, m.flipped);
      // Every image is flipped (both ways at once for horizontal_and_vertical, as Keras
      // draws one number for both) or left as it is.
      EXPECT_TRUE(flipped || image_is(y, x, b, same)) << m.mode << " image " << b;
      flips += flipped;
    }
    expect_rate(flips, 2000, 0.5, m.mode);
  }
}

TEST(RandomContrast, DrawsFactorsFromKerasRange) {
  // Pixels far inside the value range, so that nothing clips: each image's factor is
  // (y - mean) / (x - mean) of any pixel.
  const Tensor x = random_images({3000, 2, 2, 1}, 3, 100.f, 150.f);
  for (const auto& [factor, lo, hi] : std::vector<std::tuple<PerChannel, double, double>>{
           {0.2, 1.0, 1.2},          // a number f: [1, 1 + f], as Keras 3.15 reads it
           {{0.3, 0.5}, 0.7, 1.5}}) {  // a pair: [1 - lower, 1 + upper]
    const Tensor y = run(RandomContrast(factor, {.value_range = {0, 1000}, .seed = 5}), x, true, 1);
    std::vector<double> factors;
    for (std::int64_t b = 0; b < 3000; ++b) {
      double mean = 0;
      for (int i = 0; i < 4; ++i) mean += x.item(b * 4 + i) / 4;
      const double f = (y.item(b * 4) - mean) / (x.item(b * 4) - mean);
      if (std::fabs(x.item(b * 4) - mean) > 1.0) factors.push_back(f);
    }
    expect_uniform(factors, lo, hi, "contrast factor");
  }
  // Clipped to value_range.
  const Tensor clipped = run(RandomContrast({0.9, 0.9}, {.value_range = {110, 140}, .seed = 5}), x, true, 1);
  for (std::int64_t i = 0; i < clipped.size(); ++i) {
    ASSERT_GE(clipped.item(i), 110.f);
    ASSERT_LE(clipped.item(i), 140.f);
  }
}

TEST(RandomBrightness, AddsDeltasFromFactorTimesValueRange) {
  const Tensor x = random_images({3000, 2, 3, 3}, 4, 100.f, 150.f);
  const Tensor y = run(RandomBrightness({-0.1, 0.3}, {.value_range = {0, 255}, .seed = 9}), x, true, 2);
  std::vector<double> deltas;
  for (std::int64_t b = 0; b < 3000; ++b) {
    const double d = y.item(b * 18) - x.item(b * 18);
    for (int i = 1; i < 18; ++i) ASSERT_NEAR(y.item(b * 18 + i) - x.item(b * 18 + i), d, 1e-4);  // one per image
    deltas.push_back(d);
  }
  expect_uniform(deltas, -0.1 * 255, 0.3 * 255, "brightness delta");
}

// Content moves by the drawn shift: with nearest interpolation and a constant fill, an
// image of ones shifted down by dy rows has its top round(dy) rows filled.
TEST(RandomTranslation, ShiftsByFractionsOfTheImageDrawnFromTheFactors) {
  const std::int64_t n = 2000, h = 40, w = 30;
  const Tensor x = Tensor::filled({n, h, w, 1}, 1.f);
  const Tensor y = run(RandomTranslation({0.1, 0.5}, {-0.4, -0.2}, {.fill_mode = "constant", .interpolation = "nearest",
                                                                       .seed = 3, .fill_value = -1.f}),
                       x, true, 4);
  std::vector<double> down, right;
  for (std::int64_t b = 0; b < n; ++b) {
    double top = 0, left_cols = 0, right_cols = 0;
    for (std::int64_t r = 0; r < h; ++r) top += at(y, b, r, w / 2, 0) < 0;
    for (std::int64_t c = 0; c < w; ++c) {
      const bool filled = at(y, b, h - 1, c, 0) < 0 && at(y, b, h / 2 + 10, c, 0) < 0;
      (c < w / 2 ? left_cols : right_cols) += filled;
    }
    EXPECT_EQ(left_cols, 0) << "the content moves left: the right columns fill";
    down.push_back(top);
    right.push_back(-right_cols);
  }
  // The filled counts are the shifts rounded: within half a pixel of Keras's ranges.
  expect_uniform(down, 0.1 * h - 0.5, 0.5 * h + 0.5, "rows down");
  expect_uniform(right, -0.4 * w - 0.5, -0.2 * w + 0.5, "columns right");
}

// Without width_factor, one zoom for both axes (Keras's width_zoom = height_zoom): the
// filled border of a square image of ones is as wide as it is tall. With it, they differ.
TEST(RandomZoom, ZoomsBothAxesByOneDrawWithoutWidthFactor) {
  const std::int64_t n = 500, s = 41;
  const Tensor x = Tensor::filled({n, s, s, 1}, 1.f);
  const auto borders = [&](const Tensor& y, std::int64_t b) {
    double rows = 0, cols = 0;
    for (std::int64_t i = 0; i < s; ++i) {
      rows += at(y, b, i, s / 2, 0) < 0;
      cols += at(y, b, s / 2, i, 0) < 0;
    }
    return std::pair{rows, cols};
  };
  const Tensor same = run(RandomZoom({0.2, 0.8}, {.fill_mode = "constant", .interpolation = "nearest", .seed = 2,
                                                  .fill_value = -1.0}),
                          x, true, 1);
  std::vector<double> zooms;
  for (std::int64_t b = 0; b < n; ++b) {
    const auto [rows, cols] = borders(same, b);
    EXPECT_EQ(rows, cols) << b;
    // Row r reads c + (r - c) z: filled where that falls outside; about s (1 - 1 / z).
    zooms.push_back(s / (s - rows));
  }
  // z in [1.2, 1.8]; the count is whole pixels, so compare loosely at the ends.
  double least = 10, most = 0;
  for (double z : zooms) least = std::min(least, z), most = std::max(most, z);
  EXPECT_GT(least, 1.1);
  EXPECT_LT(most, 1.95);
  const Tensor apart = run(RandomZoom({0.2, 0.8}, {.width_factor = PerChannel{0.2, 0.8}, .fill_mode = "constant",
                                                   .interpolation = "nearest", .seed = 2, .fill_value = -1.0}),
                           x, true, 1);
  double differ = 0;
  for (std::int64_t b = 0; b < n; ++b) differ += borders(apart, b).first != borders(apart, b).second;
  EXPECT_GT(differ, n / 2);
}

// A factor of exactly a quarter turn: every image turned 90 degrees counter-clockwise (as
// Keras's matrix turns it), pixels landing on pixels.
TEST(RandomRotation, QuarterTurnFactorTurnsEveryImage) {
  const Tensor x = random_images({6, 7, 7, 2}, 5);
  const Tensor y = run(RandomRotation({0.25, 0.25}, {.interpolation = "nearest", .seed = 4}), x, true, 0);
  for (std::int64_t b = 0; b < 6; ++b) {
    // Output (x, y) reads input (c - (y - c), c + (x - c)) with c = 3: row r, column k
    // reads row k, column 6 - r.
    EXPECT_TRUE(image_is(y, x, b, [](std::int64_t r, std::int64_t k) { return std::pair{k, 6 - r}; })) << b;
  }
}

// A shear of exactly +-0.5 along x, its sign drawn per image: output (x, y) reads input
// (x + sx y, y), so the bottom rows of an image of ones are filled on the right (sx > 0)
// or on the left (sx < 0), for half the images each.
TEST(RandomShear, ShearsEitherWayForHalfTheImages) {
  const std::int64_t n = 2000, h = 9, w = 9;
  const Tensor x = Tensor::filled({n, h, w, 1}, 1.f);
  const Tensor y = run(RandomShear({.x_factor = PerChannel{0.5, 0.5}, .interpolation = "nearest",
                                    .fill_mode = "constant", .fill_value = -1.0, .seed = 5}),
                       x, true, 3);
  double left = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    const bool left_filled = at(y, b, h - 1, 0, 0) < 0, right_filled = at(y, b, h - 1, w - 1, 0) < 0;
    ASSERT_NE(left_filled, right_filled) << b;
    ASSERT_GT(at(y, b, 0, 0, 0), 0.f) << "row 0 does not move";
    left += left_filled;
  }
  expect_rate(left, static_cast<double>(n), 0.5, "sheared left");
}

// One offset for the whole batch, uniform over every position the window fits.
TEST(RandomCrop, DrawsOneUniformOffsetPerBatch) {
  const std::int64_t h = 8, w = 7;
  Tensor x({3, h, w, 1});
  for (std::int64_t b = 0; b < 3; ++b) {
    for (std::int64_t i = 0; i < h * w; ++i) x.data<float>()[b * h * w + i] = static_cast<float>(i);
  }
  RandomCrop crop(5, 5, {.seed = 8});
  std::vector<double> counts(4 * 3, 0);
  const int steps = 1200;
  for (int step = 0; step < steps; ++step) {
    const Tensor y = run(crop, x, true, step);
    const auto first = static_cast<std::int64_t>(y.item(0));
    const std::int64_t r = first / w, c = first % w;
    ASSERT_LT(r, 4);
    ASSERT_LT(c, 3);
    for (std::int64_t b = 0; b < 3; ++b) {
      ASSERT_TRUE(image_is(y, x, b, [&](std::int64_t i, std::int64_t k) { return std::pair{i + r, k + c}; }));
    }
    counts[static_cast<std::size_t>(r * 3 + c)] += 1;
  }
  for (double count : counts) expect_rate(count, steps, 1.0 / 12, "offset");
}

// The probability of inverting is itself drawn from the factor: its mean is the rate.
TEST(RandomInvert, InvertsAtTheMeanOfItsFactorRange) {
  const Tensor x = random_images({4000, 2, 2, 1}, 8, 0.f, 255.f);
  const std::vector<std::pair<PerChannel, double>> factors = {{1.0, 0.5}, {0.4, 0.2}, {{0.6, 0.8}, 0.7}};
  for (const auto& [factor, rate] : factors) {
    const Tensor y = run(RandomInvert({.factor = factor, .seed = 4}), x, true, 2);
    double inverted = 0;
    for (std::int64_t b = 0; b < 4000; ++b) {
      bool all_inverted = true, all_same = true;
      for (int i = 0; i < 4; ++i) {
        all_inverted = all_inverted && std::fabs(y.item(b * 4 + i) - (255.f - x.item(b * 4 + i))) < 1e-4f;
        all_same = all_same && y.item(b * 4 + i) == x.item(b * 4 + i);
      }
      ASSERT_TRUE(all_inverted || all_same) << b;
      inverted += all_inverted;
    }
    expect_rate(inverted, 4000, rate, "inversions");
  }
}

TEST(RandomGrayscale, TurnsImagesGreyAtItsRate) {
  const Tensor x = random_images({4000, 2, 2, 3}, 9, 0.f, 255.f);
  const Tensor y = run(RandomGrayscale({.factor = 0.3, .seed = 6}), x, true, 1);
  double grey = 0;
  for (std::int64_t b = 0; b < 4000; ++b) {
    const bool is_grey = y.item(b * 12) == y.item(b * 12 + 1) && y.item(b * 12 + 1) == y.item(b * 12 + 2);
    if (!is_grey) {
      for (int i = 0; i < 12; ++i) ASSERT_EQ(y.item(b * 12 + i), x.item(b * 12 + i)) << b;
    } else {
      const float want = 0.2989f * x.item(b * 12) + 0.5870f * x.item(b * 12 + 1) + 0.1140f * x.item(b * 12 + 2);
      ASSERT_NEAR(y.item(b * 12), want, 1e-3f) << b;
    }
    grey += is_grey;
  }
  expect_rate(grey, 4000, 0.3, "grey images");
}

// No addition (factor 0), thresholds from [0.2, 0.8 · 255] (Keras's minval is not scaled):
// a pixel of 100 turns to 155 where the image's threshold is at most 100.
TEST(Solarization, SolarizesWhereTheDrawnThresholdIsBelow) {
  const Tensor x = Tensor::filled({4000, 1, 1, 1}, 100.f);
  const Tensor y = run(Solarization({.threshold_factor = PerChannel{0.2, 0.8}, .seed = 3}), x, true, 5);
  double solarized = 0;
  for (std::int64_t b = 0; b < 4000; ++b) {
    ASSERT_TRUE(y.item(b) == 100.f || y.item(b) == 155.f) << y.item(b);
    solarized += y.item(b) == 155.f;
  }
  expect_rate(solarized, 4000, (100.0 - 0.2) / (0.8 * 255 - 0.2), "solarized");
}

// The hue of an RGB pixel in [0, 1) (its max above its min), as rgb_to_hsv computes it.
double hue(double r, double g, double b) {
  const double v = std::max({r, g, b}), range = v - std::min({r, g, b});
  double h = r == v ? (g - b) / range : g == v ? (b - r) / range + 2 : (r - g) / range + 4;
  h /= 6;
  return h < 0 ? h + 1 : h;
}

// Each image's hue turned by ±f / 2, f uniform on Keras's factor range and either sign for
// half the images; saturation and value kept.
TEST(RandomHue, TurnsHuesByHalfTheFactorEitherWay) {
  const std::int64_t n = 3000;
  Tensor x({n, 1, 2, 3});
  for (std::int64_t b = 0; b < n; ++b) {  // two pixels of one hue, saturated and not
    const float px[6] = {0.9f, 0.3f, 0.1f, 0.6f, 0.4f, 0.3f};
    for (int i = 0; i < 6; ++i) x.data<float>()[b * 6 + i] = px[i];
  }
  const Tensor y = run(RandomHue({0.2, 0.8}, {.value_range = {0, 1}, .seed = 4}), x, true, 2);
  std::vector<double> turns;
  double negative = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    const float* p = y.data<float>() + b * 6;
    const auto turn_of = [](double before, double after) { return after - before - std::round(after - before); };
    const double turn = turn_of(hue(0.9, 0.3, 0.1), hue(p[0], p[1], p[2]));  // wrapped into [-0.5, 0.5]
    ASSERT_NEAR(turn_of(hue(0.6, 0.4, 0.3), hue(p[3], p[4], p[5])), turn, 1e-4) << "one turn per image";
    ASSERT_NEAR(std::max({p[0], p[1], p[2]}), 0.9, 1e-5) << "value kept";
    ASSERT_NEAR(std::max({p[0], p[1], p[2]}) - std::min({p[0], p[1], p[2]}), 0.8, 1e-5) << "saturation kept";
    negative += turn < 0;
    turns.push_back(std::fabs(turn));
  }
  expect_rate(negative, static_cast<double>(n), 0.5, "turned back");
  expect_uniform(turns, 0.1, 0.4, "|turn|");
}

// Saturation times u / (1 - u) (u uniform on the factor's range), hue and value kept: a
// pixel of saturation 0.5 comes back with 0.5 u / (1 - u), below 1 here, so unclipped.
TEST(RandomSaturation, ScalesSaturationByDrawsFromTheFactor) {
  const std::int64_t n = 3000;
  Tensor x({n, 1, 1, 3});
  for (std::int64_t b = 0; b < n; ++b) {
    x.data<float>()[b * 3] = 0.8f, x.data<float>()[b * 3 + 1] = 0.4f, x.data<float>()[b * 3 + 2] = 0.6f;
  }
  const Tensor y = run(RandomSaturation({0.2, 0.6}, {.value_range = {0, 1}, .seed = 3}), x, true, 4);
  std::vector<double> draws;
  for (std::int64_t b = 0; b < n; ++b) {
    const float* p = y.data<float>() + b * 3;
    const double v = std::max({p[0], p[1], p[2]}), s = (v - std::min({p[0], p[1], p[2]})) / v;
    ASSERT_NEAR(v, 0.8, 1e-5) << "value kept";
    if (s > 1e-4) ASSERT_NEAR(hue(p[0], p[1], p[2]), hue(0.8, 0.4, 0.6), 1e-4) << "hue kept";
    const double scale = s / 0.5;
    draws.push_back(scale / (1 + scale));  // u back from u / (1 - u)
  }
  expect_uniform(draws, 0.2, 0.6, "saturation draw");
}

// Each image moved towards (or away from) its grey by one f, uniform on the factor's range.
TEST(RandomColorDegeneration, BlendsTowardsGreyByDrawsFromTheFactor) {
  const Tensor x = random_images({3000, 1, 2, 3}, 10, 100.f, 150.f);
  const Tensor y = run(RandomColorDegeneration({-0.2, 0.6}, {.seed = 2}), x, true, 3);
  std::vector<double> blends;
  for (std::int64_t b = 0; b < 3000; ++b) {
    const auto px = [&](const Tensor& t, std::int64_t i) { return double{t.item(b * 6 + i)}; };
    const double grey = 0.2989 * px(x, 0) + 0.5870 * px(x, 1) + 0.1140 * px(x, 2);
    if (std::fabs(grey - px(x, 0)) < 5) continue;
    const double f = (px(y, 0) - px(x, 0)) / (grey - px(x, 0));
    const double grey2 = 0.2989 * px(x, 3) + 0.5870 * px(x, 4) + 0.1140 * px(x, 5);
    ASSERT_NEAR(px(y, 5), px(x, 5) + f * (grey2 - px(x, 5)), 1e-2) << "one f per image";
    blends.push_back(f);
  }
  expect_uniform(blends, -0.2, 0.6, "blend");
}

// With only brightness_factor, RandomBrightness's deltas; with no factor, the identity.
TEST(RandomColorJitter, DrawsEachGivenLayersParameters) {
  const Tensor x = random_images({3000, 1, 2, 3}, 11, 100.f, 150.f);
  const Tensor y = run(RandomColorJitter({.brightness_factor = PerChannel{-0.1, 0.2}, .seed = 5}), x, true, 1);
  std::vector<double> deltas;
  for (std::int64_t b = 0; b < 3000; ++b) {
    const double d = y.item(b * 6) - x.item(b * 6);
    for (int i = 1; i < 6; ++i) ASSERT_NEAR(y.item(b * 6 + i) - x.item(b * 6 + i), d, 1e-4);
    deltas.push_back(d);
  }
  expect_uniform(deltas, -0.1 * 255, 0.2 * 255, "brightness delta");
  EXPECT_TRUE(equal(run(RandomColorJitter({.seed = 5}), x, true, 1), x));
}

// Bits drawn as Keras's randint over [lower, upper): an image of every byte 0..255 keeps
// 2^bits levels, each bit count in [2, 6) for a quarter of the images; equal bounds keep that one.
TEST(RandomPosterization, KeepsBitsDrawnFromTheFactor) {
  const std::int64_t n = 2000;
  Tensor x({n, 1, 256, 1});
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t i = 0; i < 256; ++i) x.data<float>()[b * 256 + i] = static_cast<float>(i) + 0.5f;
  }
  const auto levels = [&](const Tensor& y, std::int64_t b) {
    std::set<float> seen(y.data<float>() + b * 256, y.data<float>() + (b + 1) * 256);
    for (float v : seen) EXPECT_EQ(v, std::floor(v)) << "whole bytes";
    return seen.size();
  };
  const Tensor y = run(RandomPosterization({2, 6}, {.seed = 7}), x, true, 2);
  std::map<std::size_t, double> counts;
  for (std::int64_t b = 0; b < n; ++b) counts[levels(y, b)] += 1;
  ASSERT_EQ(counts.size(), 4u);
  for (std::size_t bits = 2; bits < 6; ++bits) expect_rate(counts[std::size_t{1} << bits], n, 0.25, "levels");
  const Tensor three = run(RandomPosterization({3, 3}, {.seed = 7}), x, true, 2);
  for (std::int64_t b = 0; b < 20; ++b) EXPECT_EQ(levels(three, b), 8u);
}

// The centre of a 3 x 3 image becomes x + (1 - 2f)(s - x), s its smoothed value: f read
// back is uniform on the factor's range.
TEST(RandomSharpness, BlendsByDrawsFromTheFactor) {
  const std::int64_t n = 3000;
  const Tensor x = random_images({n, 3, 3, 1}, 12, 50.f, 200.f);
  const Tensor y = run(RandomSharpness({0.2, 0.7}, {.seed = 8}), x, true, 5);
  std::vector<double> fs;
  for (std::int64_t b = 0; b < n; ++b) {
    double s = 0;
    for (int i = 0; i < 9; ++i) s += x.item(b * 9 + i) * (i == 4 ? 5.0 : 1.0) / 13.0;
    const double centre = x.item(b * 9 + 4);
    if (std::fabs(s - centre) < 5) continue;
    fs.push_back((1 - (y.item(b * 9 + 4) - centre) / (s - centre)) / 2);
  }
  expect_uniform(fs, 0.2, 0.7, "sharpness factor");
}

// A point of light spreads in the images blurred, at the factor's mean rate, every one of
// them by the batch's one kernel; the others keep it.
TEST(RandomGaussianBlur, BlursAtItsRateWithOneKernelPerBatch) {
  const std::int64_t n = 3000;
  Tensor x = Tensor::filled({n, 3, 3, 1}, 0.f);
  for (std::int64_t b = 0; b < n; ++b) x.data<float>()[b * 9 + 4] = 100.f;
  const Tensor y = run(RandomGaussianBlur({.factor = 0.6, .sigma = PerChannel{0.5, 1.0}, .seed = 9}), x, true, 3);
  double blurred = 0;
  std::int64_t first = -1;
  for (std::int64_t b = 0; b < n; ++b) {
    const bool spread = y.item(b * 9) > 0.f;
    if (!spread) {
      for (int i = 0; i < 9; ++i) ASSERT_EQ(y.item(b * 9 + i), x.item(b * 9 + i)) << b;
      continue;
    }
    blurred += 1;
    if (first < 0) first = b;
    for (int i = 0; i < 9; ++i) ASSERT_EQ(y.item(b * 9 + i), y.item(first * 9 + i)) << "one kernel per batch";
  }
  expect_rate(blurred, static_cast<double>(n), 0.3, "blurred");  // p uniform on [0, 0.6]
}

// At the factor's mean rate, one box of the fill over every channel, its sides between
// sqrt(scale) of the image's (a pixel either way for the cut).
TEST(RandomErasing, ErasesOneBoxAtItsRate) {
  const std::int64_t n = 2000, h = 20, w = 30;
  const Tensor x = random_images({n, h, w, 2}, 13, 0.5f, 1.f);
  const Tensor y = run(RandomErasing({.factor = 1.0, .scale = {0.1, 0.3}, .fill_value = -1.0, .value_range = {-1, 1},
                                      .seed = 4}),
                       x, true, 6);
  double erased = 0;
  for (std::int64_t b = 0; b < n; ++b) {
    std::int64_t top = h, bottom = -1, left = w, right = -1, count = 0;
    for (std::int64_t r = 0; r < h; ++r) {
      for (std::int64_t c = 0; c < w; ++c) {
        const bool out = at(y, b, r, c, 0) == -1.f;
        ASSERT_EQ(out, at(y, b, r, c, 1) == -1.f) << "every channel";
        if (!out) {
          ASSERT_EQ(at(y, b, r, c, 0), at(x, b, r, c, 0));
          continue;
        }
        top = std::min(top, r), bottom = std::max(bottom, r), left = std::min(left, c), right = std::max(right, c);
        ++count;
      }
    }
    if (count == 0) continue;
    erased += 1;
    ASSERT_EQ(count, (bottom - top + 1) * (right - left + 1)) << "a box";
    EXPECT_GE(bottom - top + 1, std::sqrt(0.1) * h - 1);
    EXPECT_LE(bottom - top + 1, std::sqrt(0.3) * h + 1);
    EXPECT_GE(right - left + 1, std::sqrt(0.1) * w - 1);
    EXPECT_LE(right - left + 1, std::sqrt(0.3) * w + 1);
  }
  expect_rate(erased, static_cast<double>(n), 0.5, "erased");  // p uniform on [0, 1]
}

TEST(Augmentation, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = random_images({16, 9, 8, 3}, 6, 0.f, 255.f);
  const std::vector<std::function<Layer()>> makes = {
      [] { return RandomFlip({.seed = 1}); },
      [] { return RandomRotation(0.3, {.seed = 1}); },
      [] { return RandomZoom(0.3, {.seed = 1}); },
      [] { return RandomTranslation(0.3, 0.3, {.seed = 1}); },
      [] { return RandomContrast(0.5, {.seed = 1}); },
      [] { return RandomBrightness(0.5, {.seed = 1}); },
      [] { return RandomCrop(5, 5, {.seed = 1}); },
      [] { return RandomInvert({.seed = 1}); },
      [] { return RandomShear({.x_factor = 0.3, .y_factor = 0.3, .seed = 1}); },
      [] { return RandomGrayscale({.seed = 1}); },
      [] { return Solarization({.addition_factor = 0.5, .threshold_factor = 0.5, .seed = 1}); },
      [] { return RandomHue(0.5, {.seed = 1}); },
      [] { return RandomSaturation(0.5, {.seed = 1}); },
      [] { return RandomColorDegeneration(0.5, {.seed = 1}); },
      [] { return RandomColorJitter({.brightness_factor = 0.2, .hue_factor = 0.5, .seed = 1}); },
      [] { return RandomPosterization(6, {.seed = 1}); },
      [] { return RandomSharpness(0.5, {.seed = 1}); },
      [] { return RandomGaussianBlur({.seed = 1}); },
      [] { return RandomErasing({.seed = 1}); }};
  for (const auto& make : makes) {
    const Layer a = make();
    SCOPED_TRACE(a.class_name());
    // A fresh layer with the seed, at the step: the same images (a resumed fit).
    EXPECT_TRUE(equal(run(make(), x, true, 7), run(a, x, true, 7)));
    EXPECT_FALSE(equal(run(a, x, true, 8), run(a, x, true, 7)));
  }
  // Another seed, other draws.
  EXPECT_FALSE(
      equal(run(RandomRotation(0.3, {.seed = 2}), x, true, 7), run(RandomRotation(0.3, {.seed = 1}), x, true, 7)));
}

// The colour layers' gradients match finite differences in training (the draws are the
// same at every evaluation of one step), with pixels away from value_range's ends and
// channels apart (no tie for HSV's max or min within the differences' step), each pixel
// ordering its channels another way.
TEST(Augmentation, ColourLayersGradientsMatchFiniteDifferences) {
  Tensor x = random_images({2, 4, 5, 3}, 14, 0.f, 0.05f);
  const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (std::int64_t p = 0; p < x.size() / 3; ++p) {
    for (int c = 0; c < 3; ++c) x.data<float>()[p * 3 + c] += 0.3f + 0.15f * static_cast<float>(orders[p % 6][c]);
  }
  const std::vector<Layer> layers = {
      RandomSharpness({0.2, 0.8}, {.value_range = {0, 1}, .seed = 1}),
      RandomColorDegeneration(0.5, {.value_range = {0, 1}, .seed = 2}),
      RandomGaussianBlur({.kernel_size = IntPair(3, 5), .sigma = PerChannel{0.4, 0.9}, .value_range = {0, 1},
                          .seed = 3}),
      RandomErasing({.fill_value = 0.0, .value_range = {0, 1}, .seed = 4}),
      RandomSaturation({0.2, 0.4}, {.value_range = {0, 1}, .seed = 5}),
      RandomHue(0.3, {.value_range = {0, 1}, .seed = 6})};
  for (const Layer& layer : layers) {
    const auto build = [&](Graph& g, const std::vector<Output>& in) { return layer.impl().call(g, {in[0]})[0]; };
    const GradientCheckResult r = check_gradients(build, {x}, {.training = true});
    EXPECT_TRUE(r.ok) << layer.class_name() << ": " << r.report;
  }
}

// Keras's gradients: through the arithmetic of RandomContrast and RandomBrightness and the
// reversal of RandomFlip. The resampling layers have none here: asked for one (a layer
// with weights before them), the error names the op.
TEST(Augmentation, GradientsFlowThroughArithmeticAndAreRefusedThroughResampling) {
  const Tensor x = random_images({4, 5, 6, 2}, 7, 10.f, 20.f);
  for (const Layer& layer : std::vector<Layer>{RandomFlip({.seed = 1}), RandomContrast(0.5, {.value_range = {0, 1}}),
                                               RandomBrightness(0.1, {.value_range = {0, 1}})}) {
    Graph g;
    Output in = g.placeholder({x.shape()});
    const Output y = layer.impl().call(g, {in})[0];
    const auto grads = gradients(ops::reduce_sum(ops::mul(y, y)), {in});
    Program p(g, {in}, {grads[0], y});
    const auto out = p.run({x}, {.training = true, .step = 1});
    double worst = 0;
    if (layer.class_name() != "RandomFlip") continue;
    // y = a reversal of x: d sum(y^2) / dx = 2 x, whatever the flips.
    for (std::int64_t i = 0; i < x.size(); ++i) {
      worst = std::max(worst, std::fabs(double{out[0].item(i)} - 2.0 * x.item(i)));
    }
    EXPECT_LT(worst, 1e-4);
  }
  for (const Layer& layer : std::vector<Layer>{RandomRotation(0.2), RandomZoom(0.2), RandomTranslation(0.1, 0.1),
                                               RandomShear({.x_factor = 0.2})}) {
    Graph g;
    Output in = g.placeholder({x.shape()});
    const Output y = layer.impl().call(g, {in})[0];
    try {
      gradients(ops::reduce_sum(y), {in});
      ADD_FAILURE() << layer.class_name() << ": a gradient";
    } catch (const NotImplementedError& e) {
      EXPECT_NE(std::string(e.what()).find("image_affine_transform"), std::string::npos) << e.what();
    }
  }
}

}  // namespace augmentation_layers_test
