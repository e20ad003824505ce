// random_normal_like (core/ops/random_ops.h): N(0, 1) draws that are a pure function of
// (seed, stream, step, element of the global batch). The statistics are checked within
// 4.5 standard errors of each statistic at the sample size used, so a correct op fails
// about once in 10^5 runs of a new seed (the seeds here are fixed); the rest is checked
// bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/autodiff.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/random_ops.h"
#include "core/program.h"
#include "core/rng.h"
#include "core_test_util.h"
#include "op_cases.h"
#include "thread_count.h"

using namespace strata;
using namespace strata::testing;

namespace random_ops_test {

namespace {

// The op's draws for a tensor of `shape`, in a program of its own.
Tensor draw(const Shape& shape, std::uint64_t seed, std::uint64_t stream, const RunOptions& options) {
  Graph g;
  Output like = g.placeholder({shape.with_dim(0, kUnknownDim)}, "like");
  Program p(g, {like}, {ops::random_normal_like(like, seed, stream)});
  return p.run({Tensor::filled(shape, 0.f)}, options)[0];
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data<float>(), b.data<float>(), static_cast<std::size_t>(a.size()) * sizeof(float)) == 0;
}

// Element i is Philox(mix_seed(seed, step), stream).normal(first + i), bit for bit: the
// op's definition, however the kernel batches its blocks (sixteen at a time, then one by
// one: sizes no multiple of 16, a shard whose first element is not one either).
void check_definition() {
  struct D {
    Shape shape;
    std::int64_t step, sample_offset;
  };
  for (const D& d : std::vector<D>{{{7, 33}, 0, 0}, {{257}, 4, 0}, {{6, 5, 3}, 9, 2}, {{40, 17}, 1, 3}}) {
    const Tensor got = draw(d.shape, 42, 7, {.training = true, .step = d.step, .sample_offset = d.sample_offset});
    ASSERT_EQ(got.dtype(), DType::float32);
    const Philox rng(mix_seed(42, static_cast<std::uint64_t>(d.step)), 7);
    const std::int64_t first = d.sample_offset * (got.size() / d.shape[0]);
    for (std::int64_t i = 0; i < got.size(); ++i) {
      const float want = rng.normal(static_cast<std::uint64_t>(first + i));
      ASSERT_EQ(std::memcmp(&got.data<float>()[i], &want, sizeof want), 0)
          << d.shape.to_string() << " at step " << d.step << ", sample offset " << d.sample_offset << ": element "
          << i << " is " << got.data<float>()[i] << ", Philox gives " << want;
    }
  }
}

// The draws do not move with `like`'s values: finite differences are zero, as the
// declared gradient (none) is.
GraphBuilder draw_like(std::uint64_t seed, std::uint64_t stream) {
  return unary([=](Output x) { return ops::random_normal_like(x, seed, stream); });
}
const RegisterOpCases random_cases(
    {{"random_normal_like", OpCase{{{"(3, 4)", draw_like(42, 7), {uniform({3, 4}, -1, 1, 5)}}}, check_definition}}});

}  // namespace

TEST(RandomNormalLike, IsStandardNormal) {
  const Tensor z = draw({400, 500}, 3, 1, {.training = true, .step = 2});
  const auto n = static_cast<double>(z.size());
  double mean = 0, lag_product = 0;
  for (std::int64_t i = 0; i < z.size(); ++i) mean += z.item(i);
  mean /= n;
  double variance = 0, within_one = 0, beyond_two = 0, beyond_three = 0, beyond_four = 0, largest = 0;
  for (std::int64_t i = 0; i < z.size(); ++i) {
    const double v = z.item(i), a = std::fabs(v);
    variance += (v - mean) * (v - mean);
    within_one += a < 1;
    beyond_two += a > 2;
    beyond_three += a > 3;
    beyond_four += a > 4;
    largest = std::max(largest, a);
    if (i > 0) lag_product += v * z.item(i - 1);
  }
  variance /= n;
  const double k = 4.5;
  EXPECT_NEAR(mean, 0.0, k / std::sqrt(n));
  EXPECT_NEAR(variance, 1.0, k * std::sqrt(2.0 / n));
  auto mass = [&](double count, double p, const char* what) {
    EXPECT_NEAR(count / n, p, k * std::sqrt(p * (1 - p) / n)) << what;
  };
  mass(within_one, 0.682689, "within one");
  mass(beyond_two, 0.045500, "beyond two");
  mass(beyond_three, 0.002700, "beyond three");
  mass(beyond_four, 0.0000633, "beyond four");
  // Neighbours (consecutive Philox counters) are uncorrelated: E[z_i z_{i-1}] = 0, with
  // standard error 1 / sqrt(n).
  EXPECT_NEAR(lag_product / (n - 1), 0.0, k / std::sqrt(n - 1));
  // Box-Muller's u1 is at least 1 / (2^24 + 1): no draw beyond sqrt(2 ln(2^24 + 1)).
  EXPECT_LE(largest, std::sqrt(2.0 * std::log(16777217.0)));
}

TEST(RandomNormalLike, DrawsDependOnSeedStreamAndStepOnly) {
  const Shape shape{6, 50};
  const Tensor a = draw(shape, 11, 2, {.training = true, .step = 5});
  // A fresh graph and program with the same seed, stream and step: the same bits (a run
  // resumed from a checkpoint draws what the uninterrupted one did).
  EXPECT_TRUE(same_bits(draw(shape, 11, 2, {.training = true, .step = 5}), a));
  // The mode is not read: inference draws the same numbers.
  EXPECT_TRUE(same_bits(draw(shape, 11, 2, {.training = false, .step = 5}), a));
  // Another step, seed or stream: other numbers, element by element.
  for (const Tensor& other : {draw(shape, 11, 2, {.training = true, .step = 6}),
                              draw(shape, 12, 2, {.training = true, .step = 5}),
                              draw(shape, 11, 3, {.training = true, .step = 5})}) {
    int equal = 0;
    for (std::int64_t i = 0; i < a.size(); ++i) equal += other.item(i) == a.item(i);
    EXPECT_EQ(equal, 0);
  }
  // Two runs of one program at one step draw the same; the next step draws anew.
  Graph g;
  Output like = g.placeholder({shape}, "like");
  Program p(g, {like}, {ops::random_normal_like(like, 11, 2)});
  const Tensor zeros = Tensor::filled(shape, 0.f);
  EXPECT_TRUE(same_bits(p.run({zeros}, {.training = true, .step = 5})[0], a));
  EXPECT_TRUE(same_bits(p.run({zeros}, {.training = true, .step = 5})[0], a));
  EXPECT_FALSE(same_bits(p.run({zeros}, {.training = true, .step = 6})[0], a));
}

TEST(RandomNormalLike, SameBitsOnOneAndThreeThreads) {
  // Large enough for the kernel to split the range over the workers; 16 does not divide
  // the chunks.
  const Shape shape{101, 997};
  Tensor one, three;
  {
    ThreadCount threads(1);
    one = draw(shape, 8, 4, {.training = true, .step = 3});
  }
  {
    ThreadCount threads(3);
    three = draw(shape, 8, 4, {.training = true, .step = 3});
  }
  EXPECT_TRUE(same_bits(one, three));
}

TEST(RandomNormalLike, AShardDrawsItsSliceOfTheWholeBatch) {
  // Data-parallel processes each feed a shard of the step's global batch: the shard from
  // sample `offset` draws the rows a single process draws there.
  const Shape whole_shape{8, 37};
  const Tensor whole = draw(whole_shape, 21, 6, {.training = true, .step = 4});
  struct Shard {
    std::int64_t offset, rows;
  };
  for (const Shard s : {Shard{0, 3}, Shard{3, 5}, Shard{5, 2}, Shard{7, 1}}) {
    const Tensor shard =
        draw({s.rows, 37}, 21, 6, {.training = true, .step = 4, .sample_offset = s.offset, .global_batch = 8});
    for (std::int64_t i = 0; i < shard.size(); ++i) {
      ASSERT_EQ(shard.item(i), whole.item(s.offset * 37 + i)) << "shard from sample " << s.offset << ": element " << i;
    }
  }
}

TEST(RandomNormalLike, CarriesNoGradientToItsInput) {
  Graph g;
  Output x = g.placeholder({Shape{3, 4}}, "x");
  Output noise = ops::random_normal_like(x, 1, 1);
  EXPECT_FALSE(gradients(ops::reduce_sum(noise), {x})[0].valid()) << "the draws do not depend on x's values";
  // x + noise: the gradient is the identity's alone.
  Output dx = gradients(ops::reduce_sum(ops::add(x, noise)), {x})[0];
  Program p(g, {x}, {dx});
  const Tensor got = p.run({uniform({3, 4}, -1, 1, 2)}, {.training = true})[0];
  for (std::int64_t i = 0; i < got.size(); ++i) EXPECT_EQ(got.item(i), 1.f) << "element " << i;
}

}  // namespace random_ops_test
