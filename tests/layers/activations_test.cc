#include <gtest/gtest.h>

#include <cmath>

#include "core/check_gradients.h"
#include "core/program.h"
#include "layers/activations.h"

using namespace strata;

namespace activations_test {

namespace {
float apply(const std::string& name, float v) {
  Graph g;
  Output x = g.placeholder({Shape{1}});
  Output y = activations::apply(name, x);
  Program p(g, {x}, {y});
  return p.run({Tensor::from_vector<float>({1}, {v})})[0].item();
}

double sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
}  // namespace

TEST(Activations, MatchKerasDefinitions) {
  for (float x : {-3.5f, -0.7f, 0.3f, 2.2f}) {
    SCOPED_TRACE(x);
    EXPECT_NEAR(apply("relu", x), std::max(x, 0.f), 1e-6);
    EXPECT_NEAR(apply("sigmoid", x), sigmoid(x), 1e-6);
    EXPECT_NEAR(apply("tanh", x), std::tanh(x), 1e-6);
    EXPECT_NEAR(apply("elu", x), x > 0 ? x : std::exp(x) - 1, 1e-6);
    EXPECT_NEAR(apply("selu", x), 1.0507009873554805 * (x > 0 ? x : 1.6732632423543772 * (std::exp(x) - 1)), 1e-5);
    EXPECT_NEAR(apply("gelu", x), 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))), 1e-6);
    EXPECT_NEAR(apply("softplus", x), std::log1p(std::exp(x)), 1e-6);
    EXPECT_NEAR(apply("softsign", x), x / (1 + std::fabs(x)), 1e-6);
    EXPECT_NEAR(apply("swish", x), x * sigmoid(x), 1e-6);
    EXPECT_NEAR(apply("silu", x), x * sigmoid(x), 1e-6);
    EXPECT_NEAR(apply("leaky_relu", x), x > 0 ? x : 0.2 * x, 1e-6);
    EXPECT_NEAR(apply("hard_sigmoid", x), std::clamp(x / 6.0 + 0.5, 0.0, 1.0), 1e-6);  // Keras 3
    EXPECT_NEAR(apply("hard_sigmoid_keras2", x), std::clamp(0.2 * x + 0.5, 0.0, 1.0), 1e-6);
    EXPECT_NEAR(apply("linear", x), x, 0);
  }
}

TEST(Activations, SoftmaxSumsToOneAlongLastAxis) {
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 3}});
  Program p(g, {x}, {activations::apply("softmax", x)});
  Tensor y = p.run({Tensor::from_vector<float>({2, 3}, {1, 2, 3, 1000, 1000, 1000})})[0];
  EXPECT_NEAR(y.item(0) + y.item(1) + y.item(2), 1.0, 1e-6);
  EXPECT_NEAR(y.item(2), std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-6);
  EXPECT_NEAR(y.item(3), 1.0 / 3.0, 1e-6);  // stable for large logits
}

TEST(Activations, GradientsMatchFiniteDifferences) {
  // (2, 4): glu halves the last axis. No value sits on a kink (0, +-0.5, +-1, +-3, 6).
  Tensor x = Tensor::from_vector<float>({2, 4}, {-1.3f, -0.4f, 0.2f, 0.9f, 1.7f, -2.1f, 2.6f, -0.7f});
  for (const auto& name : activations::names()) {
    SCOPED_TRACE(name);
    auto r = check_gradients([&](Graph&, const std::vector<Output>& in) { return activations::apply(name, in[0]); }, {x});
    EXPECT_TRUE(r.ok) << r.report;
  }
}

TEST(Activations, UnknownNameListsKnownOnes) {
  try {
    activations::validate("rectifier");
    FAIL();
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("relu"), std::string::npos);
  }
}

}  // namespace activations_test
