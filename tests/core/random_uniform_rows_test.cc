// random_uniform_rows (core/ops/random_ops.h): uniform [0, 1) draws, `columns` a row, one
// row per sample (numbered in the step's global batch) or one for the whole batch, a pure
// function of (seed, stream, step, element). Statistics within 4.5 standard errors at the
// sample size used (the seeds are fixed); the definition bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/ops.h"
#include "core/ops/random_ops.h"
#include "core/program.h"
#include "core/rng.h"
#include "core_test_util.h"
#include "op_cases.h"

using namespace strata;
using namespace strata::testing;

namespace random_uniform_rows_test {

namespace {

Tensor draw(const Shape& like_shape, std::int64_t columns, bool per_sample, std::uint64_t seed, std::uint64_t stream,
            const RunOptions& options) {
  Graph g;
  Output like = g.placeholder({like_shape.with_dim(0, kUnknownDim)}, "like");
  Program p(g, {like}, {ops::random_uniform_rows(like, columns, per_sample, seed, stream)});
  return p.run({Tensor::filled(like_shape, 0.f)}, options)[0];
}

// Element (r, c) is Philox(mix_seed(seed, step), stream).uniform(g), g = (sample_offset +
// r) * columns + c per sample, g = c for the batch's one row.
void check_definition() {
  struct D {
    Shape like;
    std::int64_t columns;
    bool per_sample;
    std::int64_t step, sample_offset;
  };
  for (const D& d : std::vector<D>{{{7, 3, 2}, 2, true, 0, 0}, {{5, 4}, 3, true, 4, 6}, {{9, 2}, 2, false, 3, 5},
                                   {{1}, 1, true, 1, 0}}) {
    const Tensor got = draw(d.like, d.columns, d.per_sample, 42, 7,
                            {.training = true, .step = d.step, .sample_offset = d.sample_offset});
    const std::int64_t rows = d.per_sample ? d.like.dims()[0] : 1;
    ASSERT_EQ(got.shape(), Shape({rows, d.columns}));
    const Philox rng(mix_seed(42, static_cast<std::uint64_t>(d.step)), 7);
    const std::int64_t first = d.per_sample ? d.sample_offset * d.columns : 0;
    for (std::int64_t i = 0; i < got.size(); ++i) {
      const float want = rng.uniform(static_cast<std::uint64_t>(first + i));
      ASSERT_EQ(std::memcmp(&got.data<float>()[i], &want, sizeof want), 0) << d.like.to_string() << ": element " << i;
    }
  }
}

GraphBuilder draw_rows(std::int64_t columns, bool per_sample) {
  return unary([=](Output x) { return ops::random_uniform_rows(x, columns, per_sample, 42, 7); });
}
const RegisterOpCases uniform_cases(
    {{"random_uniform_rows", OpCase{{{"(3, 4), 2 per sample", draw_rows(2, true), {uniform({3, 4}, -1, 1, 5)}}},
                                    check_definition}}});

}  // namespace

TEST(RandomUniformRows, IsUniformOnZeroOne) {
  const Tensor u = draw({20000, 1}, 10, true, 3, 1, {.training = true, .step = 2});
  const auto n = static_cast<double>(u.size());
  double mean = 0, below_tenth = 0, above_nine_tenths = 0, lo = 1, hi = 0;
  for (std::int64_t i = 0; i < u.size(); ++i) {
    const double v = u.item(i);
    mean += v;
    below_tenth += v < 0.1;
    above_nine_tenths += v >= 0.9;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  mean /= n;
  const double k = 4.5;
  EXPECT_NEAR(mean, 0.5, k * std::sqrt(1.0 / 12.0 / n));
  EXPECT_NEAR(below_tenth / n, 0.1, k * std::sqrt(0.09 / n));
  EXPECT_NEAR(above_nine_tenths / n, 0.1, k * std::sqrt(0.09 / n));
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
}

TEST(RandomUniformRows, DrawsDependOnSeedStreamAndStepOnly) {
  const Tensor a = draw({8, 3}, 4, true, 11, 2, {.training = true, .step = 5});
  EXPECT_TRUE(tensors_near(draw({8, 3}, 4, true, 11, 2, {.training = false, .step = 5}), a, 0.f));
  for (const Tensor& other : {draw({8, 3}, 4, true, 11, 2, {.training = true, .step = 6}),
                              draw({8, 3}, 4, true, 12, 2, {.training = true, .step = 5}),
                              draw({8, 3}, 4, true, 11, 3, {.training = true, .step = 5})}) {
    int equal = 0;
    for (std::int64_t i = 0; i < a.size(); ++i) equal += other.item(i) == a.item(i);
    EXPECT_EQ(equal, 0);
  }
  // One row for the batch: the same on every shard, whatever its sample offset.
  EXPECT_TRUE(tensors_near(draw({8, 3}, 2, false, 11, 2, {.training = true, .step = 5, .sample_offset = 4}),
                           draw({3, 3}, 2, false, 11, 2, {.training = true, .step = 5}), 0.f));
}

TEST(RandomUniformRows, RefusesNoColumnsAndNoBatchAxis) {
  Graph g;
  Output like = g.placeholder({Shape({4, 2})}, "like");
  EXPECT_THROW(ops::random_uniform_rows(like, 0, true, 1, 1), ValueError);
  Output scalar = g.placeholder({Shape({})}, "scalar");
  EXPECT_THROW(ops::random_uniform_rows(scalar, 2, true, 1, 1), ShapeError);
}

}  // namespace random_uniform_rows_test
