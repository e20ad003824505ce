// Losses that layers add (Graph::add_loss; ActivityRegularization's activity penalty) are
// part of a compiled model's total loss in evaluation and in training, as Keras's
// model.losses are, unweighted by sample weights.
#include <gtest/gtest.h>

#include <cmath>

#include "strata.h"

using namespace strata;

namespace layer_losses_test {

namespace {

// Dense(2) with fixed weights, then ActivityRegularization(l1, l2).
Model regularized(double l1, double l2) {
  auto in = Input({3});
  layers::Dense dense(2);
  auto out = layers::ActivityRegularization({.l1 = l1, .l2 = l2})(dense(in));
  Model m(in, out);
  dense.set_weights({Tensor::from_vector<float>({3, 2}, {0.5f, -1.f, 0.25f, 2.f, -0.75f, 0.1f}),
                     Tensor::from_vector<float>({2}, {0.2f, -0.3f})});
  m.compile({.optimizer = optimizers::SGD({.learning_rate = 0.0}), .loss = "mse"});
  return m;
}

const Tensor kX = Tensor::from_vector<float>({4, 3}, {1, 2, 3, -1, 0.5f, 2, 0, -2, 1, 3, 1, -1});
const Tensor kY = Tensor::from_vector<float>({4, 2}, {1, 0, -1, 2, 0.5f, 0.5f, 3, -2});

// mse + (l1·Σ|y| + l2·Σy²) / batch, from the model's own predictions.
double expected_loss(Model& m, double l1, double l2) {
  const Tensor y = m.predict(kX, {.verbose = 0});
  double mse = 0, penalty = 0;
  for (std::int64_t i = 0; i < y.size(); ++i) {
    const double v = y.item(i), d = v - kY.item(i);
    mse += d * d;
    penalty += l1 * std::fabs(v) + l2 * v * v;
  }
  return mse / static_cast<double>(y.size()) + penalty / 4.0;
}

}  // namespace

TEST(ActivityRegularization, IsTheIdentityAndAddsItsPenaltyToTheEvaluatedLoss) {
  Model m = regularized(0.1, 0.2);
  Model plain = regularized(0.0, 0.0);
  EXPECT_EQ(m.predict(kX, {.verbose = 0}).to_vector<float>(), plain.predict(kX, {.verbose = 0}).to_vector<float>());
  const double want = expected_loss(m, 0.1, 0.2);
  EXPECT_NEAR(m.evaluate(kX, kY, {.verbose = 0}).at("loss"), want, 1e-5 * want);
  // Without the penalty the loss is the mse alone, so the check above can fail.
  EXPECT_NEAR(plain.evaluate(kX, kY, {.verbose = 0}).at("loss"), expected_loss(plain, 0, 0), 1e-5);
  EXPECT_GT(want - expected_loss(plain, 0, 0), 0.1);
}

TEST(ActivityRegularization, TrainingLossAndGradientsIncludeThePenalty) {
  // At learning rate 0 a one-batch epoch reports the loss of the unchanged weights.
  Model m = regularized(0.05, 0.3);
  const double want = expected_loss(m, 0.05, 0.3);
  History h = m.fit(kX, kY, {.batch_size = 4, .epochs = 1, .verbose = 0});
  EXPECT_NEAR(h.history.at("loss").at(0), want, 1e-5 * want);

  // The penalty's gradient moves the weights: a strong l2 alone (targets equal to the
  // predictions, so the mse's gradient is zero) shrinks the outputs.
  Model shrink = regularized(0.0, 1.0);
  shrink.compile({.optimizer = optimizers::SGD({.learning_rate = 0.01}), .loss = "mse"});
  const Tensor before = shrink.predict(kX, {.verbose = 0});
  shrink.fit(kX, before, {.batch_size = 4, .epochs = 1, .verbose = 0});
  const Tensor after = shrink.predict(kX, {.verbose = 0});
  double norm_before = 0, norm_after = 0;
  for (std::int64_t i = 0; i < before.size(); ++i) {
    norm_before += before.item(i) * before.item(i);
    norm_after += after.item(i) * after.item(i);
  }
  EXPECT_LT(norm_after, norm_before * 0.99);
}

TEST(ActivityRegularization, RefusesNegativeFactors) {
  EXPECT_THROW(layers::ActivityRegularization({.l1 = -0.1}), ValueError);
  EXPECT_THROW(layers::ActivityRegularization({.l2 = -1.0}), ValueError);
}

}  // namespace layer_losses_test
