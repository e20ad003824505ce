// Loss handles: string identifiers, options, label shapes and dtypes, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "core/ops.h"
#include "core/program.h"
#include "losses/crossentropy.h"
#include "losses/regression_losses.h"

using namespace strata;

namespace loss_test {

namespace {

float run_loss(const losses::Loss& loss, const Tensor& y_true, const Tensor& y_pred, const Tensor& weight = {}) {
  Graph g;
  Output t = g.placeholder({y_true.shape().with_dim(0, kUnknownDim), y_true.dtype()}, "y_true");
  Output p = g.placeholder({y_pred.shape().with_dim(0, kUnknownDim), y_pred.dtype()}, "y_pred");
  std::vector<Output> feeds{t, p};
  std::vector<Tensor> values{y_true, y_pred};
  Output w;
  if (weight.defined()) {
    w = g.placeholder({weight.shape().with_dim(0, kUnknownDim)}, "w");
    feeds.push_back(w);
    values.push_back(weight);
  }
  Program program(g, feeds, {loss(t, p, w)});
  return program.run(values)[0].item();
}

const Tensor kProbs = Tensor::from_vector<float>({3, 3}, {0.7f, 0.2f, 0.1f, 0.1f, 0.3f, 0.6f, 0.3f, 0.4f, 0.3f});

}  // namespace

TEST(LossGet, ResolvesKerasAliases) {
  EXPECT_EQ(losses::get("mse").name(), "mean_squared_error");
  EXPECT_EQ(losses::get("mean_squared_error").name(), "mean_squared_error");
  EXPECT_EQ(losses::get("mae").name(), "mean_absolute_error");
  EXPECT_EQ(losses::get("mean_absolute_error").name(), "mean_absolute_error");
  EXPECT_EQ(losses::get("binary_crossentropy").name(), "binary_crossentropy");
  EXPECT_EQ(losses::get("categorical_crossentropy").name(), "categorical_crossentropy");
  EXPECT_EQ(losses::get("sparse_categorical_crossentropy").name(), "sparse_categorical_crossentropy");
  EXPECT_EQ(losses::get("mse").impl().reduction, losses::Reduction::sum_over_batch_size);
}

TEST(LossGet, UnknownIdentifierListsKnownNames) {
  try {
    losses::get("hinge_of_doom");
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("hinge_of_doom"), std::string::npos) << msg;
    for (const char* known : {"'mse'", "'mae'", "'binary_crossentropy'", "'sparse_categorical_crossentropy'"}) {
      EXPECT_NE(msg.find(known), std::string::npos) << msg;
    }
  }
}

TEST(LossOptions, ReductionNamesFollowKeras) {
  EXPECT_EQ(losses::parse_reduction("mean"), losses::Reduction::sum_over_batch_size);
  EXPECT_EQ(losses::parse_reduction("sum"), losses::Reduction::sum);
  EXPECT_EQ(losses::parse_reduction("none"), losses::Reduction::none);
  EXPECT_THROW(losses::MeanSquaredError({.reduction = "average"}), ValueError);
  EXPECT_THROW(losses::BinaryCrossentropy({.label_smoothing = 1.5}), ValueError);
  losses::SparseCategoricalCrossentropy scce({.from_logits = true, .name = "scce"});
  EXPECT_EQ(scce.name(), "scce");
  EXPECT_TRUE(scce.options().from_logits);
}

TEST(SparseCategoricalCrossentropy, AcceptsLabelsOfShapeBOrB1IntegerOrFloat) {
  losses::SparseCategoricalCrossentropy loss;
  float expected = -(std::log(0.7f) + std::log(0.6f) + std::log(0.4f)) / 3.f;
  EXPECT_NEAR(run_loss(loss, Tensor::from_vector<std::int32_t>({3}, {0, 2, 1}), kProbs), expected, 1e-6);
  EXPECT_NEAR(run_loss(loss, Tensor::from_vector<std::int64_t>({3, 1}, {0, 2, 1}), kProbs), expected, 1e-6);
  EXPECT_NEAR(run_loss(loss, Tensor::from_vector<float>({3}, {0.f, 2.f, 1.f}), kProbs), expected, 1e-6);
  EXPECT_NEAR(run_loss(loss, Tensor::from_vector<float>({3, 1}, {0.f, 2.f, 1.f}), kProbs), expected, 1e-6);
}

TEST(SparseCategoricalCrossentropy, OutOfRangeLabelThrowsValueErrorNamingIt) {
  for (bool from_logits : {false, true}) {
    losses::SparseCategoricalCrossentropy loss({.from_logits = from_logits});
    try {
      run_loss(loss, Tensor::from_vector<std::int32_t>({3}, {0, 7, 1}), kProbs);
      FAIL() << "expected ValueError";
    } catch (const ValueError& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find("label 7"), std::string::npos) << msg;
      EXPECT_NE(msg.find("[0, 3)"), std::string::npos) << msg;
    }
    EXPECT_THROW(run_loss(loss, Tensor::from_vector<std::int32_t>({3}, {0, -1, 1}), kProbs), ValueError);
  }
}

TEST(SparseCategoricalCrossentropy, RejectsOneHotLabelsAtDefinition) {
  Graph g;
  Output t = g.placeholder({Shape{kUnknownDim, 3}}, "y_true");
  Output p = g.placeholder({Shape{kUnknownDim, 3}}, "y_pred");
  EXPECT_THROW(losses::SparseCategoricalCrossentropy()(t, p), ShapeError);
}

TEST(CategoricalCrossentropy, RejectsIntegerLabelsAtDefinition) {
  Graph g;
  Output t = g.placeholder({Shape{kUnknownDim}}, "y_true");
  Output p = g.placeholder({Shape{kUnknownDim, 3}}, "y_pred");
  EXPECT_THROW(losses::CategoricalCrossentropy()(t, p), ShapeError);
}

TEST(Losses, SumOverBatchSizeDividesByElementCountEvenWithWeights) {
  Tensor t = Tensor::from_vector<float>({4, 1}, {1.f, 2.f, 3.f, 4.f});
  Tensor p = Tensor::from_vector<float>({4, 1}, {0.f, 0.f, 0.f, 0.f});
  Tensor w = Tensor::from_vector<float>({4}, {1.f, 0.f, 0.f, 0.f});
  EXPECT_NEAR(run_loss(losses::MeanSquaredError(), t, p, w), 1.f / 4.f, 1e-6);
  EXPECT_NEAR(run_loss(losses::MeanSquaredError({.reduction = "sum"}), t, p, w), 1.f, 1e-6);
  EXPECT_NEAR(run_loss(losses::MeanSquaredError(), t, p), 30.f / 4.f, 1e-6);
}

TEST(Losses, ClipsSaturatedProbabilitiesLikeKeras) {
  // p = 0 for the true class: -log(1e-7).
  float loss = run_loss(losses::BinaryCrossentropy(), Tensor::from_vector<float>({1, 1}, {1.f}),
                        Tensor::from_vector<float>({1, 1}, {0.f}));
  EXPECT_NEAR(loss, -std::log(1e-7f), 1e-4);
}

TEST(Losses, AreGraphNodesOnly) {
  Graph g;
  Output t = g.placeholder({Shape{kUnknownDim}, DType::int32}, "y_true");
  Output p = g.placeholder({Shape{kUnknownDim, 5}}, "y_pred");
  int before = g.num_nodes();
  Output value = losses::SparseCategoricalCrossentropy({.from_logits = true})(t, p);
  EXPECT_GT(g.num_nodes(), before);
  Program program(g, {t, p}, {value});
  int steps = program.num_steps();
  Tensor labels = Tensor::from_vector<std::int32_t>({2}, {1, 4});
  for (int i = 0; i < 3; ++i) program.run({labels, Tensor::filled({2, 5}, 0.5f)});
  EXPECT_EQ(program.num_steps(), steps);
  EXPECT_NEAR(program.run({labels, Tensor::filled({2, 5}, 0.5f)})[0].item(), std::log(5.f), 1e-6);
}

}  // namespace loss_test
