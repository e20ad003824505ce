// batch_split (core/ops/batch_split.h): equal parts of axis 0, sized from the fed batch on
// each run of one program, a batch the count does not divide refused then, and its gradient
// (the parts' concatenated) by finite differences. Keras's own numbers:
// tests/io/keras_ops_test.cc (keras_ops_batch_axis_golden.json).
#include <gtest/gtest.h>

#include <vector>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_split.h"
#include "core/program.h"
#include "op_cases.h"

namespace strata::testing::batch_split_test {
namespace {

using V = const std::vector<Output>&;

void check_batch_split() {
  Graph g;
  const Output x = g.placeholder({Shape{kUnknownDim, 2}});
  const std::vector<Output> parts = ops::batch_split(x, 2);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[1].shape(), (Shape{kUnknownDim, 2}));
  Program p(g, {x}, parts);
  auto out = p.run({tensor<float>({2, 2}, {1, 2, 3, 4})});
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{3, 4}));
  out = p.run({tensor<float>({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})});
  EXPECT_EQ(out[1].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{5, 6, 7, 8}));
  EXPECT_THROW(p.run({tensor<float>({3, 2}, {1, 2, 3, 4, 5, 6})}), ShapeError);  // 2 does not divide 3
  Graph known;
  EXPECT_THROW(ops::batch_split(known.placeholder({Shape{3, 2}}), 2), ShapeError);
}

const RegisterOpCases batch_split_cases({
    {"batch_split",
     OpCase{.gradient_checks = {{"three parts of (6, 2)",
                                 [](Graph&, V x) {
                                   const std::vector<Output> parts = ops::batch_split(x[0], 3);
                                   // Each part weighed differently, so a part's gradient lands in its rows.
                                   return ops::add(ops::add(parts[0], ops::mul(parts[1], 2.f)), ops::mul(parts[2], -3.f));
                                 },
                                 {uniform({6, 2}, -1, 1, 540)}}},
            .forward_check = check_batch_split}},
});

}  // namespace
}  // namespace strata::testing::batch_split_test
