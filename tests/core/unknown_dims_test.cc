// Dimensions unknown until run time (None) beyond the batch: one Program, compiled once,
// run on inputs of several sizes. "same" pads that depend on the size (ops::kSamePad) are
// worked out when the program runs and give what the explicit pads of each size give;
// the gradients of a convolution and an average pool read the input's sizes then; and
// reshape's dim_from entries keep None dims and resolve a -1 beside them.
#include <gtest/gtest.h>

#include <cmath>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/pool_ops.h"
#include "core/program.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace unknown_dims_test {

namespace {

void expect_same_values(const Tensor& a, const Tensor& b, const std::string& what) {
  ASSERT_EQ(a.shape(), b.shape()) << what;
  const auto x = a.to_vector<float>(), y = b.to_vector<float>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_NEAR(x[i], y[i], 1e-5f * (1.f + std::fabs(y[i]))) << what << ": element " << i;
  }
}

// One image size's explicit "same" pads (top, bottom, left, right).
std::vector<std::int64_t> explicit_pads(const Shape& x, std::int64_t k, std::int64_t stride, std::int64_t dilation) {
  const auto [t, b] = ops::same_pads(x[1], k, stride, dilation);
  const auto [l, r] = ops::same_pads(x[2], k, stride, dilation);
  return {t, b, l, r};
}

}  // namespace

// (N, None, None, C) through conv2d with run-time "same" pads, then its gradients for the
// input and the kernel: each size gives what a Program built for that size gives.
TEST(UnknownDims, ConvWithRunTimeSamePadsAndItsGradientsMatchExplicitPadsAtEverySize) {
  const std::int64_t k = 3, stride = 2, dilation = 1;
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, kUnknownDim, kUnknownDim, 2}}, "x");
  Output kernel = g.placeholder({Shape{k, k, 2, 3}}, "kernel");
  const std::vector<std::int64_t> same(4, ops::kSamePad);
  Output y = ops::conv2d(x, kernel, {{stride, stride}, {dilation, dilation}, same, 1});
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, kUnknownDim, kUnknownDim, 3}));
  Output loss = ops::reduce_sum(ops::mul(y, y), {});
  const std::vector<Output> grads = gradients(loss, {x, kernel});
  Program p(g, {x, kernel}, {y, grads[0], grads[1]});
  const Tensor w = uniform({k, k, 2, 3}, -1, 1, 7);
  for (const Shape& size : {Shape{2, 9, 10, 2}, Shape{1, 6, 5, 2}, Shape{2, 9, 10, 2}}) {
    const Tensor in = uniform(size, -1, 1, 11);
    const auto got = p.run({in, w});
    Graph e;
    Output ex = e.placeholder({size}, "x");
    Output ek = e.placeholder({Shape{k, k, 2, 3}}, "kernel");
    const std::vector<std::int64_t> pads = explicit_pads(size, k, stride, dilation);
    Output ey = ops::conv2d(ex, ek, {{stride, stride}, {dilation, dilation}, pads, 1});
    const std::vector<Output> eg = gradients(ops::reduce_sum(ops::mul(ey, ey), {}), {ex, ek});
    const auto want = Program(e, {ex, ek}, {ey, eg[0], eg[1]}).run({in, w});
    for (std::size_t i = 0; i < 3; ++i) {
      expect_same_values(got[i], want[i], size.to_string() + " result " + std::to_string(i));
    }
  }
}

// Max and average pools with run-time "same" pads, and the average pool's gradient, which
// reads the pooled input's size when the program runs.
TEST(UnknownDims, PoolsWithRunTimeSamePadsMatchExplicitPadsAtEverySize) {
  for (const bool max : {true, false}) {
    Graph g;
    Output x = g.placeholder({Shape{kUnknownDim, kUnknownDim, kUnknownDim, 2}}, "x");
    const ops::Pool2DParams params{{3, 3}, {2, 2}, std::vector<std::int64_t>(4, ops::kSamePad)};
    Output y = max ? ops::max_pool2d(x, params) : ops::avg_pool2d(x, params);
    Output dx = gradients(ops::reduce_sum(ops::mul(y, y), {}), {x})[0];
    Program p(g, {x}, {y, dx});
    for (const Shape& size : {Shape{2, 8, 9, 2}, Shape{1, 5, 4, 2}}) {
      const Tensor in = uniform(size, -1, 1, 5);
      const auto got = p.run({in});
      Graph e;
      Output ex = e.placeholder({size}, "x");
      const ops::Pool2DParams explicit_params{{3, 3}, {2, 2}, explicit_pads(size, 3, 2, 1)};
      Output ey = max ? ops::max_pool2d(ex, explicit_params) : ops::avg_pool2d(ex, explicit_params);
      Output edx = gradients(ops::reduce_sum(ops::mul(ey, ey), {}), {ex})[0];
      const auto want = Program(e, {ex}, {ey, edx}).run({in});
      for (std::size_t i = 0; i < 2; ++i) {
        expect_same_values(got[i], want[i], std::string(max ? "max " : "avg ") + size.to_string());
      }
    }
  }
}

// dim_from keeps the batch and a None dim as fed; the -1 beside them is resolved when the
// program runs; the gradient flows back in the input's shape.
TEST(UnknownDims, ReshapeKeepsDimsFromItsInputsAndResolvesMinusOneWhenRun) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, kUnknownDim, 6}}, "x");
  Output like = g.placeholder({Shape{kUnknownDim, 4}}, "like");
  Output y = ops::reshape(x, {ops::dim_from(0), -1, 3}, {});
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, kUnknownDim, 3}));
  Output z = ops::reshape(x, {ops::dim_from(0, 1), -1}, {like});
  EXPECT_EQ(z.shape(), (Shape{kUnknownDim, kUnknownDim}));
  Output dx = gradients(ops::reduce_sum(ops::mul(y, y), {}), {x})[0];
  Program p(g, {x, like}, {y, z, dx});
  for (const std::int64_t steps : {5, 2}) {
    const Tensor in = uniform({2, steps, 6}, -1, 1, 3);
    const auto out = p.run({in, uniform({2, 4}, -1, 1, 4)});
    EXPECT_EQ(out[0].shape(), (Shape{2, 2 * steps, 3}));
    EXPECT_EQ(out[0].to_vector<float>(), in.to_vector<float>());
    EXPECT_EQ(out[1].shape(), (Shape{2, 6 * steps}));
    EXPECT_EQ(out[2].shape(), in.shape());
    const auto d = out[2].to_vector<float>(), v = in.to_vector<float>();
    for (std::size_t i = 0; i < v.size(); ++i) EXPECT_FLOAT_EQ(d[i], 2 * v[i]);
  }
  // Sizes that do not divide are refused when the program runs: 12 elements in 5 rows.
  EXPECT_THROW(p.run({uniform({2, 1, 6}, -1, 1, 3), uniform({5, 4}, -1, 1, 4)}), ShapeError);
}

TEST(UnknownDims, DefinitionTimeErrorsStillComeFromTheKnownDims) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, kUnknownDim, 7}}, "x");
  EXPECT_THROW(ops::reshape(x, {ops::dim_from(0), ops::dim_from(3), 7}, {}), ShapeError);  // no dim 3
  Output images = g.placeholder({Shape{kUnknownDim, kUnknownDim, kUnknownDim, 3}}, "images");
  Output kernel = g.placeholder({Shape{3, 3, 2, 4}}, "kernel");  // expects 2 channels
  EXPECT_THROW(ops::conv2d(images, kernel, {{1, 1}, {1, 1}, std::vector<std::int64_t>(4, ops::kSamePad), 1}),
               ShapeError);
  // A kSamePad half-pair is no padding Keras has.
  Output two = g.placeholder({Shape{kUnknownDim, kUnknownDim, kUnknownDim, 2}}, "two");
  EXPECT_THROW(ops::conv2d(two, kernel, {{1, 1}, {1, 1}, {ops::kSamePad, 0, 0, 0}, 1}), ValueError);
}

}  // namespace unknown_dims_test
