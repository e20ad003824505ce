// Symbolic gradients: they are graph nodes, so they can be differentiated again, and
// they follow the runtime batch size like every other node.
#include <gtest/gtest.h>

#include <cmath>

#include "core/autodiff.h"
#include "core/check_gradients.h"
#include "core/ops.h"
#include "core/ops/conv_ops.h"
#include "core/ops/pool_ops.h"
#include "core/program.h"
#include "core_test_util.h"

using namespace strata;
using namespace strata::testing;

namespace autodiff_test {

namespace {

using V = const std::vector<Output>&;

// d/dx of sum(f(x)) as a graph: a builder whose output is itself a gradient.
GraphBuilder gradient_of(std::function<Output(Output)> f) {
  return [f](Graph&, V x) { return gradients(ops::reduce_sum(f(x[0])), {x[0]})[0]; };
}

}  // namespace

TEST(CheckGradients, DetectsAWrongGradient) {
  // stop_gradient hides half of d(x * x)/dx: the analytic gradient is x, the numeric 2x.
  auto r = check_gradients([](Graph&, V x) { return ops::mul(x[0], ops::stop_gradient(x[0])); },
                           {uniform({3}, 0.5f, 1.f, 1)});
  EXPECT_FALSE(r.ok);
  EXPECT_GT(r.max_abs_error, 0.2f);
  EXPECT_NE(r.report.find("input 0 (3,)"), std::string::npos) << r.report;
}

TEST(CheckGradients, DoesNotPerturbIntegerInputs) {
  auto r = check_gradients([](Graph&, V x) { return ops::pick(ops::tanh(x[0]), x[1]); },
                           {uniform({3, 4}, -1, 1, 2), tensor<std::int64_t>({3}, {3, 0, 1})});
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_EQ(r.report.find("input 1"), std::string::npos) << "labels are fed, not checked: " << r.report;
}

TEST(CheckGradients, FeedsFixedFloatInputsAsGiven) {
  GraphBuilder build = [](Graph&, V x) { return ops::pick(ops::tanh(x[0]), x[1]); };
  std::vector<Tensor> inputs{uniform({3, 4}, -1, 1, 3), tensor<float>({3}, {3, 0, 1})};
  EXPECT_THROW(check_gradients(build, inputs), ValueError) << "perturbed float labels are not class indices";
  GradientCheckOptions options;
  options.fixed_inputs = {1};
  auto r = check_gradients(build, inputs, options);
  EXPECT_TRUE(r.ok) << r.report;
  EXPECT_EQ(r.report.find("input 1"), std::string::npos) << r.report;
}

TEST(Autodiff, SumsGradientsOverEveryPath) {
  // y = x * x + tanh(x): dy/dx = 2x + 1 - tanh(x)^2.
  Tensor x = tensor<float>({3}, {-1.f, 0.5f, 2.f});
  Tensor g = evaluate([](Graph&, V in) {
    Output y = ops::add(ops::mul(in[0], in[0]), ops::tanh(in[0]));
    return gradients(ops::reduce_sum(y), {in[0]})[0];
  }, {x});
  Tensor expected = x.clone();
  for (auto& v : expected.values<float>()) v = 2 * v + 1 - std::tanh(v) * std::tanh(v);
  EXPECT_TRUE(tensors_near(g, expected));
}

TEST(Autodiff, GivesNoGradientToUnrelatedInputs) {
  Graph g;
  Output x = g.placeholder({{3}}, "x");
  Output unrelated = g.placeholder({{3}}, "unrelated");
  Output labels = g.placeholder({{}, DType::int64}, "labels");
  auto grads = gradients(ops::reduce_sum(ops::exp(x)), {x, unrelated, labels});
  EXPECT_TRUE(grads[0].valid());
  EXPECT_FALSE(grads[1].valid());
  EXPECT_FALSE(grads[2].valid());
}

TEST(Autodiff, UsesTheGivenOutputGradient) {
  Tensor x = tensor<float>({2}, {1.f, 2.f});
  Tensor dy = tensor<float>({2}, {3.f, -1.f});
  Tensor g = evaluate([](Graph&, V in) { return gradients(ops::square(in[0]), {in[0]}, in[1])[0]; }, {x, dy});
  EXPECT_TRUE(tensors_near(g, tensor<float>({2}, {6.f, -4.f})));
}

TEST(Autodiff, BroadcastGradientsFollowTheRuntimeBatch) {
  // x (None, 4) + b (4,) and x + r with r (None, 4) fed with batch 1: the gradients of b
  // and r sum over the batch, whatever it is at run time.
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 4}}, "x");
  Output b = g.placeholder({Shape{4}}, "b");
  Output r = g.placeholder({Shape{kUnknownDim, 4}}, "r");
  Output c = g.placeholder({Shape{kUnknownDim, 4}}, "c");
  Output y = ops::reduce_sum(ops::mul(ops::add(ops::add(x, b), r), c));
  auto grads = gradients(y, {x, b, r});
  Program p(g, {x, b, r, c}, {grads[0], grads[1], grads[2]});
  for (std::int64_t batch : {1, 3, 5}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    Tensor cv = uniform({batch, 4}, -1, 1, static_cast<std::uint64_t>(batch));
    auto out = p.run({Tensor({batch, 4}), Tensor({4}), Tensor({1, 4}), cv});
    Tensor column_sums({4});
    for (std::int64_t i = 0; i < cv.size(); ++i) column_sums.data<float>()[i % 4] += cv.item(i);
    EXPECT_TRUE(tensors_near(out[0], cv));
    EXPECT_TRUE(tensors_near(out[1], column_sums));
    EXPECT_TRUE(tensors_near(out[2], column_sums.reshaped({1, 4})));
  }
}

TEST(Autodiff, MatmulGradientFollowsTheRuntimeBatch) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}}, "x");
  Output w = g.placeholder({Shape{3, 2}}, "w");
  Output dw = gradients(ops::reduce_sum(ops::matmul(x, w)), {w})[0];
  Program p(g, {x, w}, {dw});
  for (std::int64_t batch : {2, 5}) {
    Tensor xv = uniform({batch, 3}, -1, 1, 9);
    Tensor expected({3, 2});
    for (std::int64_t i = 0; i < batch; ++i) {
      for (std::int64_t k = 0; k < 3; ++k) {
        for (std::int64_t j = 0; j < 2; ++j) expected.data<float>()[k * 2 + j] += xv.item(i * 3 + k);
      }
    }
    EXPECT_TRUE(tensors_near(p.run({xv, Tensor({3, 2})})[0], expected));
  }
}

// --- second order: check_gradients over builders that return gradients -----------------

TEST(SecondOrder, Tanh) {
  Tensor x = uniform({3, 4}, -2, 2, 10);
  Tensor first = evaluate(gradient_of(ops::tanh), {x});
  Tensor expected = x.clone();
  for (auto& v : expected.values<float>()) v = 1 - std::tanh(v) * std::tanh(v);
  EXPECT_TRUE(tensors_near(first, expected));
  auto r = check_gradients(gradient_of(ops::tanh), {x});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(SecondOrder, TanhThirdOrder) {
  auto third = [](Graph&, V x) {
    Output d1 = gradients(ops::reduce_sum(ops::tanh(x[0])), {x[0]})[0];
    return gradients(ops::reduce_sum(d1), {x[0]})[0];
  };
  auto r = check_gradients(third, {uniform({5}, -1.5f, 1.5f, 11)});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(SecondOrder, MatmulAllTransposes) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(std::string("transpose_a ") + (ta ? "on" : "off") + ", transpose_b " + (tb ? "on" : "off"));
      Tensor a = uniform(ta ? Shape{4, 3} : Shape{3, 4}, -1, 1, 12);
      Tensor b = uniform(tb ? Shape{2, 4} : Shape{4, 2}, -1, 1, 13);
      for (int wrt : {0, 1}) {
        // d/d(a, b) of sum(matmul(a, b)^2), differentiated again: non-zero in both.
        auto build = [=](Graph&, V x) {
          Output y = ops::reduce_sum(ops::square(ops::matmul(x[0], x[1], ta, tb)));
          return gradients(y, {x[0], x[1]})[static_cast<std::size_t>(wrt)];
        };
        auto r = check_gradients(build, {a, b});
        EXPECT_TRUE(r.ok) << "gradient of input " << wrt << " differentiated again:\n" << r.report;
      }
    }
  }
}

TEST(SecondOrder, LinearMatmulGradientDependsOnlyOnTheOtherOperand) {
  auto build = [](Graph&, V x) { return gradients(ops::reduce_sum(ops::matmul(x[0], x[1])), {x[0]})[0]; };
  auto r = check_gradients(build, {uniform({2, 3, 4}, -1, 1, 14), uniform({4, 5}, -1, 1, 15)});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(SecondOrder, Sigmoid) {
  auto r = check_gradients(gradient_of(ops::sigmoid), {uniform({3, 4}, -3, 3, 16)});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(SecondOrder, Softmax) {
  for (int axis : {-1, 0}) {
    SCOPED_TRACE("axis " + std::to_string(axis));
    auto build = [axis](Graph&, V x) {
      Output y = ops::reduce_sum(ops::mul(ops::softmax(x[0], axis), x[1]));
      return gradients(y, {x[0]})[0];
    };
    auto r = check_gradients(build, {uniform({3, 4}, -2, 2, 17), uniform({3, 4}, -1, 1, 18)});
    EXPECT_TRUE(r.ok) << r.report;
  }
}

TEST(SecondOrder, LogSoftmaxCrossEntropy) {
  auto build = [](Graph&, V x) {
    Output loss = ops::neg(ops::reduce_mean(ops::pick(ops::log_softmax(x[0]), x[1])));
    return gradients(loss, {x[0]})[0];
  };
  auto r = check_gradients(build, {uniform({4, 5}, -2, 2, 19), tensor<std::int64_t>({4}, {1, 4, 0, 2})});
  EXPECT_TRUE(r.ok) << r.report;
}

TEST(SecondOrder, TwoLayerNetworkWithBroadcastBias) {
  // The gradient of a dense tanh layer's loss w.r.t. its kernel, differentiated w.r.t.
  // inputs, kernel and bias.
  auto build = [](Graph&, V x) {
    Output h = ops::tanh(ops::add(ops::matmul(x[0], x[1]), x[2]));
    return gradients(ops::reduce_mean(ops::square(h)), {x[1]})[0];
  };
  auto r = check_gradients(build, {uniform({3, 4}, -1, 1, 20), uniform({4, 2}, -1, 1, 21), uniform({2}, -1, 1, 22)});
  EXPECT_TRUE(r.ok) << r.report;
}

// Conv2D(relu) then MaxPooling2D: conv2d's gradient replaces the pool gradient, the relu
// gradient and the bias sum with one max_pool2d_relu_grad node, and the gradients are the
// ones the three separate ops give.
TEST(Autodiff, ConvReluThenMaxPoolFusesItsGradientIntoOnePass) {
  Graph g;
  Output x = g.placeholder({Shape{2, 8, 8, 3}}, "x");
  Output k = g.placeholder({Shape{3, 3, 3, 4}}, "k");
  Output b = g.placeholder({Shape{4}}, "b");
  Output w = g.placeholder({Shape{2, 3, 3, 4}}, "w");
  const ops::Pool2DParams pool{{2, 2}, {2, 2}, {0, 0, 0, 0}};
  Output y = ops::conv2d_bias_activation(x, k, b, "relu", {});
  Output loss = ops::reduce_sum(ops::mul(ops::max_pool2d(y, pool), w));
  std::vector<Output> grads = gradients(loss, {x, k, b});
  // The same gradients by hand from the unfused ops: dz = relu_grad(pool_grad(w), y).
  Output dz = ops::relu_grad(ops::max_pool2d_grad(y, w, pool), y);
  std::vector<Output> want{ops::conv2d_backprop_input(dz, k, {8, 8}, {}), ops::conv2d_backprop_filter(x, dz, {3, 3}, {}),
                           ops::reduce_sum(dz, {0, 1, 2})};
  Program fused(g, {x, k, b, w}, grads);
  int fused_nodes = 0;
  for (int id : fused.execution_order()) {
    const std::string& op = g.node(id).op;
    fused_nodes += op == "max_pool2d_relu_grad";
    EXPECT_NE(op, "relu_grad") << "the fused gradient still runs a relu gradient";
    EXPECT_NE(op, "max_pool2d_grad") << "the fused gradient still runs the plain pool gradient";
  }
  EXPECT_EQ(fused_nodes, 1);
  const std::vector<Tensor> in{uniform({2, 8, 8, 3}, -1, 1, 70), uniform({3, 3, 3, 4}, -1, 1, 71),
                               uniform({4}, -0.5f, 0.5f, 72), uniform({2, 3, 3, 4}, -1, 1, 73)};
  std::vector<Tensor> got = fused.run(in);
  std::vector<Tensor> expected = Program(g, {x, k, b, w}, want).run(in);
  for (std::size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(tensors_near(got[i], expected[i], 1e-5f)) << "gradient " << i;
}

}  // namespace autodiff_test
