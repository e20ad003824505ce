// Numerical gradient checks for every loss, both from_logits modes, every reduction,
// with and without sample weights. Probabilities stay off the clipping boundaries.
#include <gtest/gtest.h>

#include <cmath>

#include "core/autodiff.h"
#include "core/check_gradients.h"
#include "core/ops.h"
#include "core/program.h"
#include "losses/crossentropy.h"
#include "losses/regression_losses.h"

using namespace strata;

namespace loss_gradients_test {

namespace {

const Tensor kRegTrue = Tensor::from_vector<float>({3, 4}, {0.5f, -1.f, 2.f, 0.3f, 0.f, 0.7f, -0.7f, 1.2f, 1.5f, 1.1f, -2.f, 0.25f});
const Tensor kRegPred = Tensor::from_vector<float>({3, 4}, {0.2f, -0.4f, 2.6f, 0.1f, 0.4f, 0.3f, -1.7f, 1.f, 1.f, 2.f, -1.f, 0.f});
const Tensor kBinTrue = Tensor::from_vector<float>({3, 2}, {1.f, 0.f, 0.f, 1.f, 0.3f, 0.8f});
const Tensor kBinProb = Tensor::from_vector<float>({3, 2}, {0.8f, 0.3f, 0.45f, 0.6f, 0.2f, 0.9f});
const Tensor kBinLogit = Tensor::from_vector<float>({3, 2}, {1.5f, -0.7f, 0.3f, 4.f, -3.f, 0.1f});
const Tensor kCatTrue = Tensor::from_vector<float>({3, 3}, {1.f, 0.f, 0.f, 0.f, 0.f, 1.f, 0.2f, 0.5f, 0.3f});
const Tensor kCatProb = Tensor::from_vector<float>({3, 3}, {0.6f, 0.3f, 0.1f, 0.2f, 0.2f, 0.6f, 0.5f, 0.9f, 0.4f});
const Tensor kCatLogit = Tensor::from_vector<float>({3, 3}, {2.f, 1.f, 0.1f, -1.f, 0.5f, 3.f, 0.f, 0.2f, -0.4f});
const Tensor kLabels = Tensor::from_vector<std::int32_t>({3}, {0, 2, 1});
const Tensor kWeights = Tensor::from_vector<float>({3}, {1.f, 0.5f, 2.f});

void expect_gradients(const losses::Loss& loss, const Tensor& y_true, const Tensor& y_pred) {
  for (bool weighted : {false, true}) {
    SCOPED_TRACE(loss.name() + (weighted ? " weighted" : ""));
    std::vector<Tensor> inputs{y_true, y_pred};
    if (weighted) inputs.push_back(kWeights);
    auto result = check_gradients(
        [&](Graph&, const std::vector<Output>& in) { return loss(in[0], in[1], weighted ? in[2] : Output{}); },
        inputs);
    EXPECT_TRUE(result.ok) << result.report;
  }
}

}  // namespace

TEST(LossGradients, RegressionLossesMatchFiniteDifferences) {
  for (std::string reduction : {"sum_over_batch_size", "sum", "none"}) {
    expect_gradients(losses::MeanSquaredError({.reduction = reduction}), kRegTrue, kRegPred);
    expect_gradients(losses::MeanAbsoluteError({.reduction = reduction}), kRegTrue, kRegPred);
  }
}

TEST(LossGradients, BinaryCrossentropyMatchesFiniteDifferencesBothModes) {
  for (std::string reduction : {"sum_over_batch_size", "sum", "none"}) {
    expect_gradients(losses::BinaryCrossentropy({.reduction = reduction}), kBinTrue, kBinProb);
    expect_gradients(losses::BinaryCrossentropy({.from_logits = true, .reduction = reduction}), kBinTrue, kBinLogit);
    expect_gradients(losses::BinaryCrossentropy({.from_logits = true, .label_smoothing = 0.2, .reduction = reduction}),
                     kBinTrue, kBinLogit);
  }
}

TEST(LossGradients, CategoricalCrossentropyMatchesFiniteDifferencesBothModes) {
  for (std::string reduction : {"sum_over_batch_size", "sum", "none"}) {
    expect_gradients(losses::CategoricalCrossentropy({.reduction = reduction}), kCatTrue, kCatProb);
    expect_gradients(losses::CategoricalCrossentropy({.from_logits = true, .reduction = reduction}), kCatTrue,
                     kCatLogit);
    expect_gradients(losses::CategoricalCrossentropy({.label_smoothing = 0.1, .reduction = reduction}), kCatTrue,
                     kCatProb);
  }
}

TEST(LossGradients, SparseCategoricalCrossentropyMatchesFiniteDifferencesBothModes) {
  for (std::string reduction : {"sum_over_batch_size", "sum", "none"}) {
    expect_gradients(losses::SparseCategoricalCrossentropy({.reduction = reduction}), kLabels, kCatProb);
    expect_gradients(losses::SparseCategoricalCrossentropy({.from_logits = true, .reduction = reduction}), kLabels,
                     kCatLogit);
  }
}

// A zero-initialized output layer gives logits of exactly 0: the gradient there must be
// sigmoid(0) − y, not a one-sided derivative.
TEST(LossGradients, BinaryCrossentropyFromLogitsIsSmoothAtZero) {
  Graph g;
  Output z = g.placeholder({Shape{2, 1}}, "z");
  Output y = g.placeholder({Shape{2, 1}}, "y");
  Output loss = losses::BinaryCrossentropy({.from_logits = true, .reduction = "sum"})(y, z);
  Output dz = gradients(loss, {z})[0];
  Program p(g, {z, y}, {loss, dz});
  auto out = p.run({Tensor::filled({2, 1}, 0.f), Tensor::from_vector<float>({2, 1}, {1.f, 0.f})});
  EXPECT_NEAR(out[0].item(), 2.f * std::log(2.f), 1e-6);
  EXPECT_NEAR(out[1].item(0), -0.5f, 1e-6);
  EXPECT_NEAR(out[1].item(1), 0.5f, 1e-6);
}

}  // namespace loss_gradients_test
