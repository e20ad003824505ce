// The ops whose result's size depends on the values (core/ops/data_sized_ops.h): nonzero,
// bincount and unique against their definitions, sized anew on each run of one program, the
// steps after them shaped by what they wrote, and bad values refused when the op runs.
// Keras's own numbers: tests/io/keras_ops_test.cc (keras_ops_data_sized_golden.json).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/data_sized_ops.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::data_sized_ops_test {
namespace {

void check_nonzero() {
  // Row-major order; NaN is nonzero, -0 is not.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Graph g;
  const Output x = g.placeholder({Shape{kUnknownDim, 3}});
  const std::vector<Output> at = ops::nonzero(x);
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[0].shape(), (Shape{kUnknownDim}));
  // A step after it takes the size each run gives.
  Program p(g, {x}, {at[0], at[1], ops::add(ops::cast(at[1], DType::float32), 1.f)});
  auto out = p.run({tensor<float>({2, 3}, {0.f, nan, -0.f, 2.f, 0.f, -1.f})});
  EXPECT_EQ(out[0].to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 1}));
  EXPECT_EQ(out[1].to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 2}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{2, 1, 3}));
  out = p.run({tensor<float>({1, 3}, {0.f, 0.f, 0.f})});
  EXPECT_EQ(out[0].shape(), (Shape{0}));
  out = p.run({tensor<float>({3, 3}, {1, 1, 1, 1, 1, 1, 0, 0, 1})});
  EXPECT_EQ(out[0].to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 0, 0, 1, 1, 1, 2}));
  EXPECT_EQ(out[1].to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 2, 0, 1, 2, 2}));
  Graph scalar;
  EXPECT_THROW(ops::nonzero(scalar.placeholder({Shape{}})), ShapeError);
}

void check_bincount() {
  Graph g;
  const Output x = g.placeholder({Shape{kUnknownDim, 4}, DType::int32});
  const Output counts = ops::bincount(x, 3);
  EXPECT_EQ(counts.shape(), (Shape{kUnknownDim, kUnknownDim}));
  Program p(g, {x}, {counts, ops::reduce_sum(ops::cast(counts, DType::float32), {1})});
  // minlength 3 where the values are smaller; the largest + 1 where not, for every row.
  auto out = p.run({tensor<std::int32_t>({2, 4}, {0, 0, 1, 1, 2, 0, 0, 0})});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].to_vector<std::int32_t>(), (std::vector<std::int32_t>{2, 2, 0, 3, 0, 1}));
  out = p.run({tensor<std::int32_t>({1, 4}, {6, 0, 6, 2})});
  EXPECT_EQ(out[0].to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 1, 0, 0, 0, 2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{4.f}));  // each row counts its 4 values
  EXPECT_THROW(p.run({tensor<std::int32_t>({1, 4}, {1, -1, 0, 0})}), ValueError);  // negative
  // An int64 value past 2^31 counts (it would overflow the counts' size) is refused, not written.
  EXPECT_THROW(evaluate([](Graph&, const std::vector<Output>& in) { return ops::bincount(in[0], 0); },
                        {tensor<std::int64_t>({2}, {1, std::int64_t{1} << 62})}),
               ValueError);
  // A vector counts into one row; floats truncate.
  EXPECT_EQ(evaluate([](Graph&, const std::vector<Output>& in) { return ops::bincount(in[0], 0); },
                     {tensor<float>({4}, {1.9f, 0.2f, 1.f, 3.5f})})
                .to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 2, 0, 1}));
  Graph deep;
  EXPECT_THROW(ops::bincount(deep.placeholder({Shape{2, 2, 2}, DType::int32}), 0), ShapeError);
}

void check_unique() {
  // First appearance, or ascending; every NaN its own value (last when sorted); 0 and -0 one.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = tensor<float>({2, 4}, {3.f, nan, -0.f, 3.f, 0.f, -1.f, nan, 3.f});
  auto run = [&](ops::UniqueOptions o) {
    Graph g;
    const Output in = g.placeholder({Shape{kUnknownDim, 4}});
    Program p(g, {in}, ops::unique(in, o));
    return p.run({x});
  };
  auto out = run({.sorted = false, .return_index = true, .return_inverse = true, .return_counts = true});
  ASSERT_EQ(out.size(), 4u);
  const std::vector<float> first_seen = out[0].to_vector<float>();
  ASSERT_EQ(first_seen.size(), 5u);
  EXPECT_EQ(first_seen[0], 3.f);
  EXPECT_TRUE(std::isnan(first_seen[1]));
  EXPECT_TRUE(first_seen[2] == 0.f && std::signbit(first_seen[2]));  // the first zero's bits, -0
  EXPECT_EQ(first_seen[3], -1.f);
  EXPECT_TRUE(std::isnan(first_seen[4]));
  EXPECT_EQ(out[1].to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 2, 5, 6}));
  EXPECT_EQ(out[2].shape(), (Shape{2, 4}));
  EXPECT_EQ(out[2].to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 2, 0, 2, 3, 4, 0}));
  EXPECT_EQ(out[3].to_vector<std::int32_t>(), (std::vector<std::int32_t>{3, 1, 2, 1, 1}));
  // Sorted, cut to 3 and padded to 7 (values with fill_value, index with 1, counts with 0).
  out = run({.return_index = true, .return_counts = true, .size = 7, .fill_value = 9.0});
  const std::vector<float> sorted = out[0].to_vector<float>();
  EXPECT_EQ(std::vector<float>(sorted.begin(), sorted.begin() + 3), (std::vector<float>{-1.f, 0.f, 3.f}));
  EXPECT_TRUE(std::isnan(sorted[3]) && std::isnan(sorted[4]));
  EXPECT_EQ(std::vector<float>(sorted.begin() + 5, sorted.end()), (std::vector<float>{9.f, 9.f}));
  EXPECT_EQ(out[1].to_vector<std::int32_t>(), (std::vector<std::int32_t>{5, 2, 0, 1, 6, 1, 1}));
  EXPECT_EQ(out[2].to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 2, 3, 1, 1, 0, 0}));
  out = run({.size = 2});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{-1.f, 0.f}));
  // Padding integers with a fill_value they cannot hold is refused.
  EXPECT_THROW(evaluate([](Graph&, const std::vector<Output>& in) { return ops::unique(in[0], {.size = 5, .fill_value = 1e10})[0]; },
                        {tensor<std::int32_t>({2}, {1, 1})}),
               ValueError);
}

const RegisterOpCases data_sized_cases({
    {"nonzero", OpCase{{}, check_nonzero, ""}},
    {"bincount", OpCase{{}, check_bincount, ""}},
    {"unique", OpCase{{}, check_unique, ""}},
});

}  // namespace
}  // namespace strata::testing::data_sized_ops_test

TEST(DataSizedOps, HaveNoGradient) {
  for (const char* op : {"nonzero", "bincount", "unique"}) EXPECT_FALSE(strata::OpRegistry::global().get(op).differentiable) << op;
}
