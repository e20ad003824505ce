#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "core/rng.h"
#include "layers/initializers.h"

using namespace strata;

namespace initializers_test {

namespace {
struct Stats {
  double mean = 0, stddev = 0, min = 1e9, max = -1e9;
};
Stats stats_of(const Tensor& t) {
  Stats s;
  for (float v : t.values<float>()) {
    s.mean += v;
    s.min = std::min<double>(s.min, v);
    s.max = std::max<double>(s.max, v);
  }
  s.mean /= static_cast<double>(t.size());
  for (float v : t.values<float>()) s.stddev += (v - s.mean) * (v - s.mean);
  s.stddev = std::sqrt(s.stddev / static_cast<double>(t.size()));
  return s;
}
}  // namespace

TEST(Initializers, GlorotUniformUsesKerasLimit) {
  Tensor w = initializers::GlorotUniform({.seed = 1})(Shape{300, 200});
  Stats s = stats_of(w);
  double limit = std::sqrt(6.0 / 500.0);
  EXPECT_LE(s.max, limit);
  EXPECT_GE(s.min, -limit);
  EXPECT_NEAR(s.stddev, limit / std::sqrt(3.0), 0.01 * limit);
  EXPECT_NEAR(s.mean, 0.0, 0.01 * limit);
}

TEST(Initializers, HeNormalIsTruncatedWithKerasStddev) {
  Tensor w = initializers::HeNormal({.seed = 2})(Shape{400, 300});
  Stats s = stats_of(w);
  double expected = std::sqrt(2.0 / 400.0);  // truncated normal rescaled to this stddev
  EXPECT_NEAR(s.stddev, expected, 0.02 * expected);
  double bound = 2.0 * expected / 0.87962566103423978;
  EXPECT_LE(s.max, bound + 1e-6);
  EXPECT_GE(s.min, -bound - 1e-6);
}

// Element i of a uniform or normal draw is Philox counter i's number, and a truncated
// draw takes the counters in order, skipping normals beyond 2: the numbers do not depend
// on how the initializer computes them (sixteen counters at a time), whole blocks of
// sixteen or not.
TEST(Initializers, DrawsArePhiloxCountersInOrder) {
  const Philox rng(7, 0);
  for (const std::int64_t n : {1, 15, 16, 17, 100, 1000}) {
    SCOPED_TRACE(n);
    const Tensor uniform = initializers::RandomUniform({.minval = -2.0, .maxval = 3.0, .seed = 7})(Shape{n});
    const Tensor normal = initializers::RandomNormal({.mean = 1.0, .stddev = 2.0, .seed = 7})(Shape{n});
    const Tensor truncated = initializers::TruncatedNormal({.mean = 1.0, .stddev = 2.0, .seed = 7})(Shape{n});
    std::uint64_t counter = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      const auto index = static_cast<std::uint64_t>(i);
      ASSERT_EQ(uniform.data<float>()[i], static_cast<float>(-2.0 + 5.0 * rng.uniform(index))) << "at " << i;
      ASSERT_EQ(normal.data<float>()[i], static_cast<float>(1.0 + 2.0 * rng.normal(index))) << "at " << i;
      float z;
      do {
        z = rng.normal(counter++);
      } while (std::fabs(z) > 2.0f);
      ASSERT_EQ(truncated.data<float>()[i], static_cast<float>(1.0 + 2.0 * z)) << "at " << i;
    }
  }
}

TEST(Initializers, ConvFansUseTheReceptiveField) {
  auto [fan_in, fan_out] = initializers::compute_fans(Shape{3, 3, 16, 32});
  EXPECT_EQ(fan_in, 9 * 16);
  EXPECT_EQ(fan_out, 9 * 32);
}

TEST(Initializers, OrthogonalGivesOrthonormalColumns) {
  Tensor w = initializers::Orthogonal({.seed = 3})(Shape{8, 5});
  Eigen::Map<const Eigen::Matrix<float, 8, 5, Eigen::RowMajor>> m(w.data<float>());
  Eigen::MatrixXf gram = m.transpose() * m;
  EXPECT_TRUE(gram.isApprox(Eigen::MatrixXf::Identity(5, 5), 1e-5f));
  Tensor wide = initializers::Orthogonal({.seed = 3})(Shape{3, 7});
  Eigen::Map<const Eigen::Matrix<float, 3, 7, Eigen::RowMajor>> mw(wide.data<float>());
  EXPECT_TRUE((mw * mw.transpose()).isApprox(Eigen::MatrixXf::Identity(3, 3), 1e-5f));
}

TEST(Initializers, ConstantsAndDefaults) {
  EXPECT_EQ(initializers::Zeros()(Shape{3}).item(2), 0.f);
  EXPECT_EQ(initializers::Ones()(Shape{3}).item(1), 1.f);
  EXPECT_EQ(initializers::Constant(2.5)(Shape{2}).item(0), 2.5f);
  Stats u = stats_of(initializers::RandomUniform({.seed = 4})(Shape{10000}));
  EXPECT_GE(u.min, -0.05);
  EXPECT_LT(u.max, 0.05);
  Stats n = stats_of(initializers::RandomNormal({.seed = 5})(Shape{20000}));
  EXPECT_NEAR(n.stddev, 0.05, 0.002);
}

TEST(Initializers, SeededDrawsRepeatAndUnseededFollowTheGlobalSeed) {
  auto init = initializers::GlorotNormal({.seed = 9});
  Tensor a = init(Shape{4, 4}), b = init(Shape{4, 4});
  EXPECT_EQ(a.to_vector<float>(), b.to_vector<float>());  // Keras 3: a seeded initializer repeats

  set_random_seed(123);
  Tensor c = Initializer("glorot_uniform")(Shape{4, 4});
  Tensor d = Initializer("glorot_uniform")(Shape{4, 4});
  set_random_seed(123);
  Tensor c2 = Initializer("glorot_uniform")(Shape{4, 4});
  EXPECT_EQ(c.to_vector<float>(), c2.to_vector<float>());
  EXPECT_NE(c.to_vector<float>(), d.to_vector<float>());
}

TEST(Initializers, EveryKerasNameResolves) {
  for (const char* name : {"zeros", "ones", "constant", "random_uniform", "random_normal", "truncated_normal",
                           "glorot_uniform", "glorot_normal", "he_uniform", "he_normal", "lecun_uniform",
                           "lecun_normal", "orthogonal", "variance_scaling"}) {
    SCOPED_TRACE(name);
    Tensor t = Initializer(name)(Shape{6, 4});
    EXPECT_EQ(t.shape(), (Shape{6, 4}));
  }
  EXPECT_THROW(Initializer("glorot"), ValueError);
}

}  // namespace initializers_test
