#include <gtest/gtest.h>

#include <cmath>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"

using namespace strata;

namespace smoke_test {

TEST(Smoke, MatmulAndGradient) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output w = g.placeholder({Shape{3, 2}}, "w");
  Output y = ops::reduce_sum(ops::tanh(ops::matmul(x, w)));
  auto grads = gradients(y, {w});
  Program p(g, {x, w}, {y, grads[0]});
  auto out = p.run({Tensor::filled({4, 3}, 0.1f), Tensor::filled({3, 2}, 0.2f)});
  EXPECT_NEAR(out[0].item(), 8 * std::tanh(0.06f), 1e-5);
  EXPECT_EQ(out[1].shape(), (Shape{3, 2}));
}

}  // namespace smoke_test
