// AugMix, RandAugment and ContrastLimitedAdaptiveHistogramEqualization against Keras 3.15
// (TensorFlow backend) within 1e-5 (tests/reference/make_augmentation_mix_goldens.py ->
// tests/data/augmentation/mix_transforms.json): CLAHE's output; AugMix's and RandAugment's
// choosing, chaining and mixing given Keras's transformation (its operations AutoContrast
// and Equalization, whose results are fixed). Their random draws are checked
// statistically (every tolerance 4.5 standard errors of the statistic at the sample size
// used; the seeds are fixed): the choices uniform, the weights Dirichlet and Beta, which
// images move; draws that depend on (seed, call, step) only, as Dropout's masks; the
// identity in inference.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/image_ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/preprocessing/aug_mix.h"
#include "layers/preprocessing/auto_contrast.h"
#include "layers/preprocessing/clahe.h"
#include "layers/preprocessing/equalization.h"
#include "layers/preprocessing/rand_augment.h"

using namespace strata;
using namespace strata::layers;
using namespace strata::testing;
using nlohmann::ordered_json;

namespace augmentation_mix_test {

namespace {

constexpr double kMixSe = 4.5;

const ordered_json& mix_cases() { return golden_file("augmentation/mix_transforms.json"); }

Tensor mix_run(const Layer& layer, const Tensor& x, bool training, std::int64_t step = 0) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  layer.impl().build({{x.shape().with_dim(0, kUnknownDim), x.dtype()}});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  return p.run({x}, {.training = training, .step = step})[0];
}

Tensor mix_images(Shape shape, unsigned seed, float lo = 0.f, float hi = 255.f) {
  Tensor t(shape);
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  for (float& v : t.values<float>()) v = u(gen);
  return t;
}

bool mix_equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (a.item(i) != b.item(i)) return false;
  }
  return true;
}

// Image b of `a` and of `b` are equal.
bool same_image(const Tensor& a, const Tensor& b, std::int64_t image) {
  const std::int64_t size = a.size() / a.shape()[0];
  for (std::int64_t i = image * size; i < (image + 1) * size; ++i) {
    if (a.item(i) != b.item(i)) return false;
  }
  return true;
}

// Image b of `a` and of `b` within `tolerance` everywhere.
bool close_image(const Tensor& a, const Tensor& b, std::int64_t image, float tolerance) {
  const std::int64_t size = a.size() / a.shape()[0];
  for (std::int64_t i = image * size; i < (image + 1) * size; ++i) {
    if (!(std::fabs(a.item(i) - b.item(i)) <= tolerance)) return false;
  }
  return true;
}

// The sample mean of `v` within 4.5 of its standard errors (the sample's own) of `mean`.
void expect_mix_mean(const std::vector<double>& v, double mean, const std::string& what) {
  double m = 0, m2 = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) m2 += (x - m) * (x - m);
  const double se = std::sqrt(m2 / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
  EXPECT_NEAR(m, mean, kMixSe * se) << what;
}

void expect_mix_rate(double count, double n, double p, const std::string& what) {
  EXPECT_NEAR(count / n, p, kMixSe * std::sqrt(p * (1 - p) / n)) << what;
}

// The draws `build` makes from a batch like `x` at each of `steps` steps, in training.
std::vector<std::vector<Tensor>> draws_over_steps(const std::function<std::vector<Output>(Output)>& build,
                                                  const Tensor& x, int steps) {
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  Program p(g, {in}, build(in));
  std::vector<std::vector<Tensor>> all;
  for (int s = 0; s < steps; ++s) all.push_back(p.run({x}, {.training = true, .step = s}));
  return all;
}

// Each golden case of `class_name` made from Keras's config, through `transform` with the
// case's parameters (`keys`, in order), against Keras's output.
void expect_mix_cases(const std::string& class_name,
                      const std::function<Output(LayerImpl&, Output, const std::vector<Output>&)>& transform,
                      const std::vector<std::string>& keys) {
  int checked = 0;
  for (const auto& c : mix_cases()) {
    if (c.value("class_name", "") != class_name) continue;
    SCOPED_TRACE(class_name + " " + c.at("config").dump());
    Layer layer = io::layer_from_config(ordered_json{{"class_name", class_name}, {"config", c.at("config")}}, {});
    const Tensor images = golden_tensor(c.at("images"));
    layer.impl().build({{images.shape().with_dim(0, kUnknownDim), DType::float32}});
    Graph g;
    Output x = g.placeholder({images.shape().with_dim(0, kUnknownDim), DType::float32}, "images");
    std::vector<Output> feeds{x}, params;
    std::vector<Tensor> values{images};
    for (const auto& k : keys) {
      values.push_back(golden_tensor(c.at("params").at(k)));
      params.push_back(g.placeholder({values.back().shape(), DType::float32}, k));
      feeds.push_back(params.back());
    }
    Program program(g, feeds, {transform(layer.impl(), x, params)});
    EXPECT_TRUE(golden_near(program.run(values, {.training = true})[0], c.at("output"), class_name));
    ++checked;
  }
  EXPECT_GT(checked, 0) << class_name;
}

}  // namespace

TEST(ContrastLimitedAdaptiveHistogramEqualization, MatchesKeras) {
  const std::string cls = "ContrastLimitedAdaptiveHistogramEqualization";
  // Deterministic and the same in inference and training: the layer's call both ways.
  for (bool training : {false, true}) {
    int checked = 0;
    for (const auto& c : mix_cases()) {
      if (c.value("class_name", "") != cls) continue;
      SCOPED_TRACE(c.at("config").dump());
      Layer layer = io::layer_from_config(ordered_json{{"class_name", cls}, {"config", c.at("config")}}, {});
      EXPECT_TRUE(golden_near(mix_run(layer, golden_tensor(c.at("images")), training), c.at("output"), cls));
      ++checked;
    }
    EXPECT_EQ(checked, 6);
  }
}

// One tile without clipping is plain histogram equalization; a flat image without
// clipping goes to 255 (bin 0 is empty, so cdf_min is 0 and the pixels' bin holds them
// all), with clipping to the share of the spread excess; more tiles than symmetric
// padding can fill are refused by name.
TEST(ContrastLimitedAdaptiveHistogramEqualization, EqualizesTilesAndRefusesGridsTooFine) {
  // One tile, no clipping: plain histogram equalization of the image's 16 distinct values.
  Tensor x({1, 4, 4, 1});
  for (std::int64_t i = 0; i < 16; ++i) x.values<float>()[static_cast<std::size_t>(i)] = static_cast<float>(i * 10);
  const Tensor y = mix_run(ContrastLimitedAdaptiveHistogramEqualization({.clip_limit = 0.0, .tile_grid_size = 1}),
                           x, false);
  for (std::int64_t i = 0; i < 16; ++i) EXPECT_NEAR(y.item(i), i * 255.0 / 15.0, 1e-4) << i;
  const Tensor flat = Tensor::filled({1, 6, 6, 2}, 77.f);
  const Tensor z = mix_run(
      ContrastLimitedAdaptiveHistogramEqualization({.clip_limit = 0.0, .tile_grid_size = {2, 3}}), flat, false);
  for (std::int64_t i = 0; i < z.size(); ++i) ASSERT_FLOAT_EQ(z.item(i), 255.f) << i;
  // clip_limit 4, tiles of 3 x 2: the bin keeps limit 4 · 6 / 256 and every bin gets
  // (6 − limit) / 256: cdf at bin 77 minus at bin 0 is limit + 77 (6 − limit) / 256.
  const Tensor clipped = mix_run(ContrastLimitedAdaptiveHistogramEqualization({.tile_grid_size = {2, 3}}), flat, false);
  const double limit = 4.0 * 6 / 256, share = (6 - limit) / 256;
  for (std::int64_t i = 0; i < clipped.size(); ++i) {
    ASSERT_NEAR(clipped.item(i), (limit + 77 * share) * 255 / (6 - share), 1e-3) << i;
  }
  Graph g;
  Output small = g.placeholder({Shape({kUnknownDim, 3, 3, 1})});
  try {
    ContrastLimitedAdaptiveHistogramEqualization layer({.name = "clahe_small"});
    layer.impl().call(g, {small});
    ADD_FAILURE() << "an 8 x 8 grid on 3 x 3 images was accepted";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("clahe_small"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("padded symmetrically"), std::string::npos) << e.what();
  }
}

TEST(RandAugment, ChainsAsKerasGivenTheChoices) {
  expect_mix_cases("RandAugment",
                   [](LayerImpl& l, Output x, const std::vector<Output>& p) {
                     return dynamic_cast<RandAugmentImpl&>(l).transform(x, p[0], 0);
                   },
                   {"choices"});
}

TEST(AugMix, MixesAsKerasGivenTheChoicesAndWeights) {
  expect_mix_cases("AugMix",
                   [](LayerImpl& l, Output x, const std::vector<Output>& p) {
                     return dynamic_cast<AugMixImpl&>(l).transform(x, {p[0], p[1], p[2]}, 0);
                   },
                   {"choices", "chain_weights", "weight"});
}

TEST(RandAugment, IsTheIdentityInInference) {
  const Tensor x = mix_images({3, 6, 5, 3}, 1);
  EXPECT_TRUE(mix_equal(mix_run(RandAugment({.seed = 1}), x, false), x));
  EXPECT_TRUE(mix_equal(mix_run(RandAugment({.num_ops = 0, .seed = 1}), x, true), x));
}

TEST(AugMix, IsTheIdentityInInference) {
  const Tensor x = mix_images({3, 6, 5, 3}, 2);
  EXPECT_TRUE(mix_equal(mix_run(AugMix({.seed = 1}), x, false), x));
}

// Keras's randint(0, 11) per slot: each operation an eleventh of the slots.
TEST(RandAugment, ChoosesEachOperationUniformly) {
  RandAugment layer({.num_ops = 4, .seed = 5});
  auto& impl = dynamic_cast<RandAugmentImpl&>(layer.impl());
  const Tensor x = mix_images({2, 4, 4, 3}, 3);
  const int steps = 1500;
  const auto all = draws_over_steps([&](Output in) { return std::vector<Output>{impl.choices(in)}; }, x, steps);
  std::vector<double> counts(11, 0.0);
  for (const auto& d : all) {
    ASSERT_EQ(d[0].shape(), Shape({1, 4}));
    for (std::int64_t i = 0; i < 4; ++i) {
      const float v = d[0].item(i);
      ASSERT_EQ(v, std::floor(v));
      ASSERT_GE(v, 0.f);
      ASSERT_LE(v, 10.f);
      counts[static_cast<std::size_t>(v)] += 1;
    }
  }
  for (std::size_t k = 0; k < 11; ++k) expect_mix_rate(counts[k], steps * 4.0, 1.0 / 11, "operation " + std::to_string(k));
}

// With one slot the output is AutoContrast's for an eleventh of the steps and
// Equalization's for another (the others move pixels otherwise), for the whole batch at
// once: the choice is the batch's.
TEST(RandAugment, AppliesTheChosenOperationToTheWholeBatch) {
  const Tensor x = mix_images({3, 6, 6, 3}, 4, 20.f, 200.f);
  const Tensor contrast = mix_run(AutoContrast(), x, true);
  const Tensor equalized = mix_run(Equalization(), x, true);
  RandAugment layer({.num_ops = 1, .seed = 6});
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  layer.impl().build({{x.shape().with_dim(0, kUnknownDim), x.dtype()}});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  const int steps = 660;
  double contrasted = 0, equalizations = 0, changed = 0;
  for (int s = 0; s < steps; ++s) {
    const Tensor y = p.run({x}, {.training = true, .step = s})[0];
    const bool c0 = same_image(y, contrast, 0), e0 = same_image(y, equalized, 0);
    for (std::int64_t b = 1; b < 3; ++b) {
      ASSERT_EQ(same_image(y, contrast, b), c0) << "step " << s;
      ASSERT_EQ(same_image(y, equalized, b), e0) << "step " << s;
    }
    contrasted += c0;
    equalizations += e0;
    changed += !same_image(y, x, 0);
  }
  expect_mix_rate(contrasted, steps, 1.0 / 11, "AutoContrast");
  expect_mix_rate(equalizations, steps, 1.0 / 11, "Equalization");
  EXPECT_EQ(changed, steps);  // every operation moves some pixel of these images
}

// Keras's draws: each slot's choice uniform over the operations and none
// (random.choice(layers + [None])); chain weights Dirichlet(alpha): mean 1/n, variance
// (1/n)(1 − 1/n) / (n alpha + 1), summing to 1; the blend weight Beta(alpha, alpha):
// mean 1/2, variance 1 / (4 (2 alpha + 1)). Second moments checked as the means of the
// squares.
TEST(AugMix, DrawsUniformChoicesDirichletAndBetaWeights) {
  for (bool all_ops : {true, false}) {
    for (double alpha : {1.0, 0.3}) {
      SCOPED_TRACE("all_ops " + std::to_string(all_ops) + ", alpha " + std::to_string(alpha));
      AugMix layer({.num_chains = 3, .chain_depth = 2, .alpha = alpha, .all_ops = all_ops, .seed = 7});
      auto& impl = dynamic_cast<AugMixImpl&>(layer.impl());
      const double options = static_cast<double>(impl.operation_count()) + 1;
      EXPECT_EQ(options, all_ops ? 12 : 8);
      const int steps = 2000;
      const auto all = draws_over_steps(
          [&](Output in) {
            const AugMixDraws d = impl.draws(in);
            return std::vector<Output>{d.choices, d.chain_weights, d.weight};
          },
          mix_images({2, 4, 4, 3}, 8), steps);
      std::vector<double> counts(static_cast<std::size_t>(options), 0.0);
      std::vector<double> w1, w1_sq, b, b_sq;
      for (const auto& d : all) {
        for (std::int64_t i = 0; i < 6; ++i) counts[static_cast<std::size_t>(d[0].item(i))] += 1;
        ASSERT_NEAR(d[1].item(0) + d[1].item(1) + d[1].item(2), 1.0, 1e-5);
        for (std::int64_t i = 0; i < 3; ++i) ASSERT_GE(d[1].item(i), 0.f);
        w1.push_back(d[1].item(1));
        w1_sq.push_back(w1.back() * w1.back());
        const double v = d[2].item(0);
        ASSERT_GE(v, 0.0);
        ASSERT_LE(v, 1.0);
        b.push_back(v);
        b_sq.push_back(v * v);
      }
      for (std::size_t k = 0; k < counts.size(); ++k) {
        expect_mix_rate(counts[k], steps * 6.0, 1.0 / options, "choice " + std::to_string(k));
      }
      const double var_w = (1.0 / 3) * (2.0 / 3) / (3 * alpha + 1), var_b = 1 / (4 * (2 * alpha + 1));
      expect_mix_mean(w1, 1.0 / 3, "chain weight");
      expect_mix_mean(w1_sq, var_w + 1.0 / 9, "chain weight squared");
      expect_mix_mean(b, 0.5, "blend weight");
      expect_mix_mean(b_sq, var_b + 0.25, "blend weight squared");
    }
  }
}

// Which pixels move: a single chain of depth 1 that chose none blends the images with
// themselves, w x + (1 − w) x, which keeps them (to float rounding) for 1 in 8 of the steps
// with all_ops off, the batch together; every other choice moves pixels of these images.
// Every output lies within value_range.
TEST(AugMix, KeepsImagesWhereNoOperationIsChosenAndStaysInRange) {
  const Tensor x = mix_images({2, 6, 6, 3}, 9, 10.f, 240.f);
  AugMix layer({.num_chains = 1, .chain_depth = 1, .factor = 0.5, .all_ops = false, .seed = 11});
  Graph g;
  Output in = g.placeholder({x.shape().with_dim(0, kUnknownDim), x.dtype()});
  layer.impl().build({{x.shape().with_dim(0, kUnknownDim), x.dtype()}});
  Program p(g, {in}, {layer.impl().call(g, {in})[0]});
  const int steps = 400;
  double kept = 0;
  for (int s = 0; s < steps; ++s) {
    const Tensor y = p.run({x}, {.training = true, .step = s})[0];
    for (std::int64_t i = 0; i < y.size(); ++i) {
      ASSERT_GE(y.item(i), 0.f);
      ASSERT_LE(y.item(i), 255.f);
    }
    const bool k0 = close_image(y, x, 0, 1e-3f);
    ASSERT_EQ(close_image(y, x, 1, 1e-3f), k0) << "step " << s;  // the choice is the batch's
    kept += k0;
  }
  expect_mix_rate(kept, steps, 1.0 / 8, "no operation");
}

TEST(AugMix, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = mix_images({2, 5, 5, 3}, 12);
  EXPECT_TRUE(mix_equal(mix_run(AugMix({.seed = 1}), x, true, 7), mix_run(AugMix({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(mix_equal(mix_run(AugMix({.seed = 1}), x, true, 8), mix_run(AugMix({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(mix_equal(mix_run(AugMix({.seed = 2}), x, true, 7), mix_run(AugMix({.seed = 1}), x, true, 7)));
}

TEST(RandAugment, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = mix_images({2, 5, 5, 3}, 13);
  EXPECT_TRUE(
      mix_equal(mix_run(RandAugment({.seed = 1}), x, true, 7), mix_run(RandAugment({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(
      mix_equal(mix_run(RandAugment({.seed = 1}), x, true, 8), mix_run(RandAugment({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(
      mix_equal(mix_run(RandAugment({.seed = 2}), x, true, 7), mix_run(RandAugment({.seed = 1}), x, true, 7)));
}

}  // namespace augmentation_mix_test
