// The ops whose result's size depends on the values (core/ops/data_sized_ops.h): nonzero
// and bincount against their definitions, sized anew on each run of one program, the
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
  // A vector counts into one row; floats truncate.
  EXPECT_EQ(evaluate([](Graph&, const std::vector<Output>& in) { return ops::bincount(in[0], 0); },
                     {tensor<float>({4}, {1.9f, 0.2f, 1.f, 3.5f})})
                .to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 2, 0, 1}));
  Graph deep;
  EXPECT_THROW(ops::bincount(deep.placeholder({Shape{2, 2, 2}, DType::int32}), 0), ShapeError);
}

const RegisterOpCases data_sized_cases({
    {"nonzero", OpCase{{}, check_nonzero, ""}},
    {"bincount", OpCase{{}, check_bincount, ""}},
});

}  // namespace
}  // namespace strata::testing::data_sized_ops_test

TEST(DataSizedOps, HaveNoGradient) {
  for (const char* op : {"nonzero", "bincount"}) EXPECT_FALSE(strata::OpRegistry::global().get(op).differentiable) << op;
}
