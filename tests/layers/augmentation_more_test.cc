// The batch-mixing and projective image augmentation layers (MixUp, ...): their
// deterministic transforms against Keras 3.15 (TensorFlow backend) within 1e-5, given
// Keras's parameters (tests/reference/make_augmentation_more_goldens.py ->
// tests/data/augmentation/more_transforms.json); the identity in inference; in training,
// Keras's distributions checked statistically (every tolerance is 4.5 standard errors of
// the statistic at the sample size used; the seeds are fixed); draws that depend on
// (seed, call, step) only, as Dropout's masks; gradients where Keras has them.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layers/preprocessing/cut_mix.h"
#include "layers/preprocessing/max_num_bounding_boxes.h"
#include "layers/preprocessing/mix_up.h"
#include "layers/preprocessing/random_elastic_transform.h"
#include "layers/preprocessing/random_perspective.h"

using namespace strata;
using namespace strata::layers;
using namespace strata::testing;
using nlohmann::ordered_json;

namespace augmentation_more_test {

namespace {

constexpr double kSe = 4.5;

const ordered_json& cases() { return golden_file("augmentation/more_transforms.json"); }

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

bool equal(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) return false;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    if (a.item(i) != b.item(i)) return false;
  }
  return true;
}

// Mean of uniform draws on [lo, hi] within 4.5 standard errors, all of them inside, and a
// tenth of them in the lowest tenth of the range.
void expect_uniform(const std::vector<double>& v, double lo, double hi, const std::string& what) {
  double mean = 0, least = hi, most = lo, low_tail = 0;
  for (double x : v) {
    mean += x;
    least = std::min(least, x);
    most = std::max(most, x);
    low_tail += x < lo + 0.1 * (hi - lo);
  }
  const auto n = static_cast<double>(v.size());
  mean /= n;
  EXPECT_NEAR(mean, (lo + hi) / 2, kSe * (hi - lo) / std::sqrt(12.0 * n)) << what;
  EXPECT_GE(least, lo - 1e-3 * (hi - lo)) << what;
  EXPECT_LE(most, hi + 1e-3 * (hi - lo)) << what;
  EXPECT_NEAR(low_tail / n, 0.1, kSe * std::sqrt(0.09 / n)) << what << ", lowest tenth";
}

void expect_rate(double count, double n, double p, const std::string& what) {
  EXPECT_NEAR(count / n, p, kSe * std::sqrt(p * (1 - p) / n)) << what;
}

// The sample mean of `v` within 4.5 of its standard errors (the sample's own) of `mean`.
void expect_mean(const std::vector<double>& v, double mean, const std::string& what) {
  double m = 0, m2 = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  for (double x : v) m2 += (x - m) * (x - m);
  const double se = std::sqrt(m2 / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
  EXPECT_NEAR(m, mean, kSe * se) << what;
}

// The output of `build` on the images and (in order) the parameter tensors.
Tensor run_transform(const std::function<Output(Output, const std::vector<Output>&)>& build, const Tensor& images,
                     const std::vector<Tensor>& params) {
  Graph g;
  Output x = g.placeholder({images.shape().with_dim(0, kUnknownDim), DType::float32}, "images");
  std::vector<Output> feeds{x}, ps;
  for (const Tensor& p : params) {
    ps.push_back(g.placeholder({p.shape(), p.dtype()}));
    feeds.push_back(ps.back());
  }
  Program program(g, feeds, {build(x, ps)});
  std::vector<Tensor> values{images};
  values.insert(values.end(), params.begin(), params.end());
  return program.run(values, {.training = true})[0];
}

// Each golden case of `class_name`: the layer made from Keras's config, its transform on
// Keras's parameters (`keys`, in order), against Keras's output.
template <class Impl>
void expect_layer_cases(const std::string& class_name,
                        const std::function<Output(const Impl&, Output, const std::vector<Output>&)>& transform,
                        const std::vector<std::string>& keys) {
  int checked = 0;
  for (const auto& c : cases()) {
    if (c.value("class_name", "") != class_name) continue;
    SCOPED_TRACE(class_name + " " + c.at("config").dump());
    Layer layer = io::layer_from_config(ordered_json{{"class_name", class_name}, {"config", c.at("config")}}, {});
    const Tensor images = golden_tensor(c.at("images"));
    layer.impl().build({{images.shape().with_dim(0, kUnknownDim), DType::float32}});
    std::vector<Tensor> params;
    for (const auto& k : keys) params.push_back(golden_tensor(c.at("params").at(k)));
    const auto& impl = dynamic_cast<const Impl&>(layer.impl());
    const Tensor y = run_transform([&](Output x, const std::vector<Output>& p) { return transform(impl, x, p); },
                                   images, params);
    EXPECT_TRUE(golden_near(y, c.at("output"), class_name));
    ++checked;
  }
  EXPECT_GT(checked, 0) << class_name;
}

}  // namespace

TEST(MixUp, BlendsAsKerasGivenTheWeightsAndOrder) {
  expect_layer_cases<MixUpImpl>(
      "MixUp", [](const MixUpImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0], p[1]); },
      {"mix_weight", "order"});
}

TEST(MixUp, IsTheIdentityInInference) {
  const Tensor x = random_images({4, 5, 6, 3}, 1, 0.f, 255.f);
  EXPECT_TRUE(equal(run(MixUp(), x, false), x));
}

// Image b is the one-hot vector e_b (one pixel, as many channels as images): its blend
// w e_b + (1 - w) e_order[b] shows the order and the weight. With alpha 50 no weight is 0
// or 1, so every partner shows: each step's order is a permutation, with a fixed point in
// 1 of n places. The weights are Beta(alpha, alpha): y_bb is 1 for a fixed point and w
// otherwise, so E[y_bb] = 1/n + (1 - 1/n) / 2 and E[y_bb (1 - y_bb)] = (1 - 1/n) alpha /
// (2 (2 alpha + 1)), whatever weights of exactly 0 or 1 float32 rounds to.
TEST(MixUp, ShufflesTheBatchAndDrawsBetaWeights) {
  constexpr std::int64_t n = 32;
  Tensor x({n, 1, 1, n});
  for (std::int64_t b = 0; b < n; ++b) x.values<float>()[static_cast<std::size_t>(b * n + b)] = 1.f;
  double fixed = 0, images = 0;
  for (std::int64_t step = 0; step < 100; ++step) {
    const Tensor y = run(MixUp({.alpha = 50.0, .seed = 4}), x, true, step);
    std::vector<int> hits(n, 0);
    for (std::int64_t b = 0; b < n; ++b) {
      std::int64_t other = b;
      for (std::int64_t c = 0; c < n; ++c) {
        if (c != b && y.item(b * n + c) > 0.f) other = c;
      }
      ++hits[static_cast<std::size_t>(other)];
      fixed += other == b;
      ++images;
    }
    for (int h : hits) ASSERT_EQ(h, 1) << "not a permutation at step " << step;
  }
  expect_rate(fixed, images, 1.0 / n, "images mixed with themselves");
  for (double alpha : {0.2, 2.0}) {
    SCOPED_TRACE(alpha);
    const MixUp layer({.alpha = alpha, .seed = 5});
    std::vector<double> own, spread;
    for (std::int64_t step = 0; step < 100; ++step) {
      const Tensor y = run(layer, x, true, step);
      for (std::int64_t b = 0; b < n; ++b) {
        double total = 0;
        for (std::int64_t c = 0; c < n; ++c) {
          const float v = y.item(b * n + c);
          ASSERT_TRUE(std::isfinite(v) && v >= 0.f && v <= 1.f) << v;
          total += v;
        }
        ASSERT_NEAR(total, 1.0, 1e-6);
        const double w = y.item(b * n + b);
        own.push_back(w);
        spread.push_back(w * (1 - w));
      }
    }
    const double p = 1.0 / n;
    expect_mean(own, p + (1 - p) / 2, "mean of each image's own weight");
    expect_mean(spread, (1 - p) * alpha / (2 * (2 * alpha + 1)), "E[w (1 - w)]");
  }
}

TEST(MixUp, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = random_images({16, 4, 5, 3}, 6, 0.f, 255.f);
  EXPECT_TRUE(equal(run(MixUp({.seed = 1}), x, true, 7), run(MixUp({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(equal(run(MixUp({.seed = 1}), x, true, 8), run(MixUp({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(equal(run(MixUp({.seed = 2}), x, true, 7), run(MixUp({.seed = 1}), x, true, 7)));
}

// y_b = w_b x_b + (1 - w_b) x_order[b]: summed over the batch, every pixel's gradient
// totals sum w_b + sum (1 - w_b) = the batch size.
TEST(MixUp, GradientsReachBothImagesOfEachBlend) {
  const Tensor x = random_images({6, 2, 3, 2}, 7);
  Graph g;
  Output in = g.placeholder({x.shape()});
  const Output y = MixUp({.seed = 3}).impl().call(g, {in})[0];
  const auto grads = gradients(ops::reduce_sum(y), {in});
  Program p(g, {in}, {grads[0]});
  const Tensor dx = p.run({x}, {.training = true, .step = 2})[0];
  const std::int64_t pixels = x.size() / 6;
  for (std::int64_t i = 0; i < pixels; ++i) {
    double total = 0;
    for (std::int64_t b = 0; b < 6; ++b) total += dx.item(b * pixels + i);
    EXPECT_NEAR(total, 6.0, 1e-5);
  }
}

TEST(CutMix, PastesAsKerasGivenTheBoxesAndOrder) {
  expect_layer_cases<CutMixImpl>(
      "CutMix", [](const CutMixImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0], p[1]); },
      {"boxes", "order"});
}

TEST(CutMix, IsTheIdentityInInference) {
  const Tensor x = random_images({4, 5, 6, 3}, 1, 0.f, 255.f);
  EXPECT_TRUE(equal(run(CutMix(), x, false), x));
  EXPECT_TRUE(equal(run(CutMix({.data_format = "channels_first"}), x, false), x));
}

// Image b is filled with the value b: each output image holds its own value but in one
// box, which holds its partner's, the partners a permutation (a fixed point, 1 in n, and
// an empty box show nothing). The box's sides are sqrt(1 - w) of the image's, w from
// Beta(alpha, alpha): its share of the image, a = 1 - w, seen as 0 for a fixed point, has
// mean (1 - 1/n) / 2 and E[a (1 - a)] = (1 - 1/n) alpha / (2 (2 alpha + 1)). A 128 x 128
// image counts the box's area to within its edge pixels (under 2% of the image, under
// half the tolerance).
TEST(CutMix, PastesOneBoxOfAShuffledPartnerWithBetaArea) {
  constexpr std::int64_t n = 32, side = 128;
  Tensor x({n, side, side, 1});
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t i = 0; i < side * side; ++i) x.values<float>()[static_cast<std::size_t>(b * side * side + i)] = b;
  }
  for (double alpha : {0.1, 1.0}) {
    SCOPED_TRACE(alpha);
    const CutMix layer({.factor = PerChannel{alpha, alpha}, .seed = 6});
    std::vector<double> share, spread;
    for (std::int64_t step = 0; step < 40; ++step) {
      const Tensor y = run(layer, x, true, step);
      const auto values = y.values<float>();
      std::vector<int> partners(n, 0);
      for (std::int64_t b = 0; b < n; ++b) {
        std::int64_t count = 0, top = side, bottom = -1, left = side, right = -1;
        const auto own = static_cast<float>(b);
        float partner = own;
        bool two_partners = false;  // checked after the loop: an assertion per pixel is slow under the sanitizers
        for (std::int64_t r = 0; r < side; ++r) {
          for (std::int64_t c = 0; c < side; ++c) {
            const float v = values[static_cast<std::size_t>((b * side + r) * side + c)];
            if (v == own) continue;
            two_partners = two_partners || (partner != own && v != partner);
            partner = v;
            ++count;
            top = std::min(top, r), bottom = std::max(bottom, r), left = std::min(left, c), right = std::max(right, c);
          }
        }
        ASSERT_FALSE(two_partners) << "two partners in image " << b;
        if (count > 0) {
          ASSERT_EQ(count, (bottom - top + 1) * (right - left + 1)) << "not one box in image " << b;
          ++partners[static_cast<std::size_t>(partner)];
        }
        const double a = static_cast<double>(count) / (side * side);
        share.push_back(a);
        spread.push_back(a * (1 - a));
      }
      for (int p : partners) ASSERT_LE(p, 1) << "not a permutation at step " << step;
    }
    const double p = 1.0 / n;
    expect_mean(share, (1 - p) / 2, "the box's share");
    expect_mean(spread, (1 - p) * alpha / (2 * (2 * alpha + 1)), "E[a (1 - a)]");
  }
}

TEST(CutMix, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = random_images({16, 8, 9, 3}, 6, 0.f, 255.f);
  EXPECT_TRUE(equal(run(CutMix({.seed = 1}), x, true, 7), run(CutMix({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(equal(run(CutMix({.seed = 1}), x, true, 8), run(CutMix({.seed = 1}), x, true, 7)));
  EXPECT_FALSE(equal(run(CutMix({.seed = 2}), x, true, 7), run(CutMix({.seed = 1}), x, true, 7)));
}

// Every output pixel is one input pixel: summed over the batch, each position's gradient
// of sum(y) totals the batch size.
TEST(CutMix, GradientsReachThePixelEachOutputTakes) {
  const Tensor x = random_images({6, 5, 4, 2}, 7);
  Graph g;
  Output in = g.placeholder({x.shape()});
  const Output y = CutMix({.seed = 3}).impl().call(g, {in})[0];
  const auto grads = gradients(ops::reduce_sum(y), {in});
  Program p(g, {in}, {grads[0]});
  const Tensor dx = p.run({x}, {.training = true, .step = 2})[0];
  const std::int64_t pixels = x.size() / 6;
  for (std::int64_t i = 0; i < pixels; ++i) {
    double total = 0;
    for (std::int64_t b = 0; b < 6; ++b) total += dx.item(b * pixels + i);
    EXPECT_NEAR(total, 6.0, 1e-5);
  }
}

TEST(RandomPerspective, ProjectsAsKerasGivenTheCornerFactors) {
  expect_layer_cases<RandomPerspectiveImpl>(
      "RandomPerspective",
      [](const RandomPerspectiveImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0], p[1]); },
      {"factors", "apply"});
}

TEST(RandomPerspective, IsTheIdentityInInference) {
  const Tensor x = random_images({4, 5, 6, 3}, 1, 0.f, 255.f);
  EXPECT_TRUE(equal(run(RandomPerspective(), x, false), x));
}

namespace {

// Solves the n x n system a z = b (row-major a) by Gaussian elimination with pivoting.
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r * n + c]) > std::fabs(a[pivot * n + c])) pivot = r;
    }
    for (std::size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[pivot * n + k]);
    std::swap(b[c], b[pivot]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> z(n);
  for (std::size_t r = n; r-- > 0;) {
    double v = b[r];
    for (std::size_t k = r + 1; k < n; ++k) v -= a[r * n + k] * z[k];
    z[r] = v / a[r * n + r];
  }
  return z;
}

}  // namespace

// The image's channels are its own x and y coordinates, which bilinear sampling keeps
// exactly inside the image (fill_value 1e30 marks every pixel that reads outside): each
// output pixel (x, y) holds H(x, y), the homography fitted from them by least squares
// (x, y, X, Y: X (g x + h y + 1) = a x + b y + c, Y (...) = d x + e y + f). Keras's end
// points are H's inverse at the corners, and their factors (end - start) / start, for the
// corner coordinates that are not 0, uniform on [-scale / 2, scale / 2]. Images move with
// probability drawn from factor's range: 0.4 for [0.4, 0.4], 1/2 for the default [0, 1].
TEST(RandomPerspective, MovesCornersByUniformFactorsWithTheDrawnProbability) {
  constexpr std::int64_t n = 250, side = 12;
  Tensor x({n, side, side, 2});
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t r = 0; r < side; ++r) {
      for (std::int64_t c = 0; c < side; ++c) {
        const auto i = static_cast<std::size_t>(((b * side + r) * side + c) * 2);
        x.values<float>()[i] = static_cast<float>(c);
        x.values<float>()[i + 1] = static_cast<float>(r);
      }
    }
  }
  const double scale = 0.6;
  for (const PerChannel& factor : {PerChannel{0.4, 0.4}, PerChannel{0.0, 1.0}}) {
    SCOPED_TRACE(factor.values[0]);
    const RandomPerspective layer({.factor = factor, .scale = scale, .fill_value = 1e30, .seed = 8});
    std::vector<double> factors;
    double moved = 0, images = 0;
    for (std::int64_t step = 0; step < 4; ++step) {
      const Tensor y = run(layer, x, true, step);
      const auto v = y.values<float>();
      for (std::int64_t b = 0; b < n; ++b) {
        ++images;
        bool same = true;
        std::vector<double> normal(64, 0.0), rhs(8, 0.0);
        for (std::int64_t r = 0; r < side; ++r) {
          for (std::int64_t c = 0; c < side; ++c) {
            const auto i = static_cast<std::size_t>(((b * side + r) * side + c) * 2);
            const double big_x = v[i], big_y = v[i + 1];
            same = same && big_x == c && big_y == r;
            if (!(big_x >= 0 && big_x <= side - 1 && big_y >= 0 && big_y <= side - 1)) continue;
            const double fx = static_cast<double>(c), fy = static_cast<double>(r);
            const std::array<std::array<double, 9>, 2> rows{{{fx, fy, 1, 0, 0, 0, -big_x * fx, -big_x * fy, big_x},
                                                             {0, 0, 0, fx, fy, 1, -big_y * fx, -big_y * fy, big_y}}};
            for (const auto& row : rows) {
              for (std::size_t j = 0; j < 8; ++j) {
                for (std::size_t k = 0; k < 8; ++k) normal[j * 8 + k] += row[j] * row[k];
                rhs[j] += row[j] * row[8];
              }
            }
          }
        }
        if (same) continue;
        ++moved;
        const std::vector<double> h = solve(normal, rhs);
        // H's inverse (its adjugate, up to scale) at the corners (W - 1, 0), (0, H - 1), (W - 1, H - 1).
        const std::array<double, 9> m{h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], 1.0};
        const auto inverse_at = [&](double px, double py) {
          const std::array<double, 9> a{m[4] * m[8] - m[5] * m[7], m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                                        m[5] * m[6] - m[3] * m[8], m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                                        m[3] * m[7] - m[4] * m[6], m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
          const double w = a[6] * px + a[7] * py + a[8];
          return std::pair{(a[0] * px + a[1] * py + a[2]) / w, (a[3] * px + a[4] * py + a[5]) / w};
        };
        const double last = side - 1;
        const auto [tr_x, tr_y] = inverse_at(last, 0);
        const auto [bl_x, bl_y] = inverse_at(0, last);
        const auto [br_x, br_y] = inverse_at(last, last);
        EXPECT_NEAR(tr_y, 0.0, 1e-3);
        EXPECT_NEAR(bl_x, 0.0, 1e-3);
        for (double end : {tr_x, bl_y, br_x, br_y}) factors.push_back(end / last - 1);
      }
    }
    expect_rate(moved, images, factor.values[0] == 0.4 ? 0.4 : 0.5, "images moved");
    expect_uniform(factors, -scale / 2, scale / 2, "corner factors");
  }
}

TEST(RandomPerspective, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = random_images({16, 8, 9, 3}, 6, 0.f, 255.f);
  const auto make = [](std::uint64_t seed) { return RandomPerspective({.seed = seed}); };
  EXPECT_TRUE(equal(run(make(1), x, true, 7), run(make(1), x, true, 7)));
  EXPECT_FALSE(equal(run(make(1), x, true, 8), run(make(1), x, true, 7)));
  EXPECT_FALSE(equal(run(make(2), x, true, 7), run(make(1), x, true, 7)));
}

TEST(RandomElasticTransform, DistortsAsKerasGivenTheNoiseField) {
  expect_layer_cases<RandomElasticTransformImpl>(
      "RandomElasticTransform",
      [](const RandomElasticTransformImpl& l, Output x, const std::vector<Output>& p) {
        return l.transform(x, p[0], p[1], p[2]);
      },
      {"noise", "distortion", "apply"});
}

TEST(RandomElasticTransform, IsTheIdentityInInferenceAndWithZeroRanges) {
  const Tensor x = random_images({4, 24, 22, 3}, 1, 0.f, 255.f);
  EXPECT_TRUE(equal(run(RandomElasticTransform(), x, false), x));
  EXPECT_TRUE(equal(run(RandomElasticTransform({.factor = 0.0}), x, true), x));
  EXPECT_TRUE(equal(run(RandomElasticTransform({.scale = 0.0}), x, true), x));
  EXPECT_FALSE(equal(run(RandomElasticTransform({.seed = 1}), x, true), x));
}

// The images' channels are their own x and y coordinates, which bilinear sampling keeps
// exactly: the output pixel (x, y) holds (x + s, y + s), s = alpha D the shift there, the
// same for both axes (Keras's one field). With a fixed distortion d (scale [d, d]) on a
// 40 x 40 image, sigma = 2 d and alpha = 4 d; D is the noise times sigma blurred by the
// normalized Gaussian g over 6 int(sigma) + 1 taps, so at the centre (far from the zero
// padding) E[D] = 0, E[D^2] = sigma^2 (sum g^2)^2 and, one pixel to the right,
// E[D D'] = sigma^2 (sum g(o) g(o + 1)) (sum g^2). One centre per image, 1920 images.
TEST(RandomElasticTransform, ShiftsBothAxesByTheBlurredNoiseField) {
  constexpr std::int64_t n = 64, side = 40;
  Tensor x({n, side, side, 2});
  for (std::int64_t b = 0; b < n; ++b) {
    for (std::int64_t r = 0; r < side; ++r) {
      for (std::int64_t c = 0; c < side; ++c) {
        const auto i = static_cast<std::size_t>(((b * side + r) * side + c) * 2);
        x.values<float>()[i] = static_cast<float>(c);
        x.values<float>()[i + 1] = static_cast<float>(r);
      }
    }
  }
  const double d = 0.7, sigma = 0.05 * d * side, alpha = 0.1 * d * side;
  const int half = 3 * static_cast<int>(sigma);
  std::vector<double> g;
  double total = 0;
  for (int o = -half; o <= half; ++o) {
    g.push_back(std::exp(-0.5 * (o / sigma) * (o / sigma)));
    total += g.back();
  }
  for (double& w : g) w /= total;
  double squares = 0, lagged = 0;
  for (std::size_t i = 0; i < g.size(); ++i) {
    squares += g[i] * g[i];
    if (i + 1 < g.size()) lagged += g[i] * g[i + 1];
  }
  // factor [1, 1]: every image (a number 1 would be the range [0, 1]).
  const RandomElasticTransform layer({.factor = PerChannel{1.0, 1.0},
                                      .scale = PerChannel{d, d},
                                      .fill_mode = "nearest",
                                      .value_range = {-1000, 1000},
                                      .seed = 9});
  std::vector<double> centre, square, product;
  const std::int64_t mid = side / 2;
  for (std::int64_t step = 0; step < 30; ++step) {
    const Tensor y = run(layer, x, true, step);
    const auto v = y.values<float>();
    const auto shift = [&](std::int64_t b, std::int64_t r, std::int64_t c, int axis) {
      const auto i = static_cast<std::size_t>(((b * side + r) * side + c) * 2 + axis);
      return static_cast<double>(v[i]) - static_cast<double>(axis == 0 ? c : r);
    };
    for (std::int64_t b = 0; b < n; ++b) {
      for (std::int64_t r = 8; r < side - 8; r += 5) {
        for (std::int64_t c = 8; c < side - 8; c += 5) ASSERT_NEAR(shift(b, r, c, 0), shift(b, r, c, 1), 1e-4);
      }
      const double here = shift(b, mid, mid, 0) / alpha, right = shift(b, mid, mid + 1, 0) / alpha;
      centre.push_back(here);
      square.push_back(here * here);
      product.push_back(here * right);
    }
  }
  expect_mean(centre, 0.0, "E[D]");
  expect_mean(square, sigma * sigma * squares * squares, "E[D^2]");
  expect_mean(product, sigma * sigma * lagged * squares, "E[D D']");
}

TEST(RandomElasticTransform, TransformsImagesWithTheDrawnProbability) {
  const Tensor x = random_images({500, 8, 8, 1}, 3, 0.f, 255.f);
  const RandomElasticTransform layer({.factor = PerChannel{0.4, 0.4}, .seed = 10});
  double changed = 0;
  for (std::int64_t step = 0; step < 4; ++step) {
    const Tensor y = run(layer, x, true, step);
    for (std::int64_t b = 0; b < 500; ++b) {
      bool same = true;
      for (std::int64_t i = 0; i < 64 && same; ++i) same = y.item(b * 64 + i) == x.item(b * 64 + i);
      changed += !same;
    }
  }
  expect_rate(changed, 2000, 0.4, "images transformed");
}

TEST(RandomElasticTransform, DrawsDependOnSeedAndStepOnly) {
  const Tensor x = random_images({8, 24, 22, 3}, 6, 0.f, 255.f);
  const auto make = [](std::uint64_t seed) { return RandomElasticTransform({.seed = seed}); };
  EXPECT_TRUE(equal(run(make(1), x, true, 7), run(make(1), x, true, 7)));
  EXPECT_FALSE(equal(run(make(1), x, true, 8), run(make(1), x, true, 7)));
  EXPECT_FALSE(equal(run(make(2), x, true, 7), run(make(1), x, true, 7)));
}

// Each output pixel is a weighted sum (weights totalling 1) of input pixels, with
// "nearest" fill and nothing clipped: the gradient of sum(y) totals the output's size.
TEST(RandomElasticTransform, GradientsReachTheSampledPixels) {
  const Tensor x = random_images({3, 24, 22, 2}, 7);
  Graph g;
  Output in = g.placeholder({x.shape()});
  const RandomElasticTransform layer(
      {.factor = PerChannel{1.0, 1.0}, .fill_mode = "nearest", .value_range = {-10, 10}, .seed = 3});
  const Output y = layer.impl().call(g, {in})[0];
  const auto grads = gradients(ops::reduce_sum(y), {in});
  Program p(g, {in}, {grads[0], y});
  const auto out = p.run({x}, {.training = true, .step = 2});
  double total = 0;
  for (std::int64_t i = 0; i < x.size(); ++i) total += out[0].item(i);
  EXPECT_NEAR(total, static_cast<double>(x.size()), 1e-2);
  EXPECT_FALSE(equal(out[1], x));
}

// Keras's transform_images: the images as they are, in training and inference.
TEST(MaxNumBoundingBoxes, PassesImagesThrough) {
  const Tensor x = random_images({3, 5, 6, 2}, 2, 0.f, 255.f);
  EXPECT_TRUE(equal(run(MaxNumBoundingBoxes(4), x, true), x));
  EXPECT_TRUE(equal(run(MaxNumBoundingBoxes(4), x, false), x));
}

}  // namespace augmentation_more_test
