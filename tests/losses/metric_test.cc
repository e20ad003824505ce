// Metric handles: Keras 3's "accuracy" resolution, names, streaming and reset.
#include <gtest/gtest.h>

#include "core/program.h"
#include "losses/accuracy_metrics.h"
#include "losses/metric.h"
#include "losses/regression_metrics.h"

using namespace strata;

namespace metric_test {

namespace {

// Runs one batch through `metric` (building it on a fresh graph) and returns result().
float update_once(metrics::Metric& metric, const Tensor& y_true, const Tensor& y_pred, const Tensor& weight = {}) {
  Graph g;
  Output t = g.placeholder({y_true.shape(), y_true.dtype()}, "y_true");
  Output p = g.placeholder({y_pred.shape()}, "y_pred");
  Output w = weight.defined() ? g.placeholder({weight.shape()}, "w") : Output{};
  std::vector<Output> stats = metric.build(t, p, w);
  std::vector<Output> feeds{t, p};
  std::vector<Tensor> values{y_true, y_pred};
  if (weight.defined()) {
    feeds.push_back(w);
    values.push_back(weight);
  }
  Program program(g, feeds, stats);
  metric.update(program.run(values));
  return metric.result();
}

const Tensor kProbs = Tensor::from_vector<float>({4, 3}, {0.7f, 0.2f, 0.1f, 0.1f, 0.3f, 0.6f, 0.5f, 0.4f, 0.1f,
                                                          0.2f, 0.5f, 0.3f});

}  // namespace

TEST(MetricGet, AccuracyResolvesLikeKeras3) {
  // Same probabilities, three label layouts: each must pick the matching accuracy.
  auto sparse = metrics::get("accuracy", Shape{kUnknownDim}, Shape{kUnknownDim, 3});
  EXPECT_NEAR(update_once(sparse, Tensor::from_vector<std::int32_t>({4}, {0, 2, 1, 1}), kProbs), 0.75f, 1e-6);
  auto sparse_b1 = metrics::get("acc", Shape{kUnknownDim, 1}, Shape{kUnknownDim, 3});
  EXPECT_EQ(sparse_b1.name(), "acc");
  EXPECT_NEAR(update_once(sparse_b1, Tensor::from_vector<float>({4, 1}, {0, 2, 1, 1}), kProbs), 0.75f, 1e-6);
  auto categorical = metrics::get("accuracy", Shape{kUnknownDim, 3}, Shape{kUnknownDim, 3});
  Tensor one_hot = Tensor::from_vector<float>({4, 3}, {1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0});
  EXPECT_NEAR(update_once(categorical, one_hot, kProbs), 0.75f, 1e-6);
  auto binary = metrics::get("accuracy", Shape{kUnknownDim, 1}, Shape{kUnknownDim, 1});
  EXPECT_NEAR(update_once(binary, Tensor::from_vector<float>({2, 1}, {1, 0}), Tensor::from_vector<float>({2, 1}, {0.6f, 0.7f})),
              0.5f, 1e-6);
}

TEST(MetricGet, RegressionNamesAndErrors) {
  EXPECT_EQ(metrics::get("mse", Shape{kUnknownDim, 2}, Shape{kUnknownDim, 2}).name(), "mse");
  EXPECT_EQ(metrics::get("mean_absolute_error", Shape{kUnknownDim, 2}, Shape{kUnknownDim, 2}).name(),
            "mean_absolute_error");
  try {
    metrics::get("precision_at_17", Shape{kUnknownDim, 2}, Shape{kUnknownDim, 2});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("precision_at_17"), std::string::npos);
    EXPECT_NE(msg.find("'accuracy'"), std::string::npos);
  }
}

TEST(Metrics, StreamAcrossBatchesAndResetPerEpoch) {
  metrics::MeanSquaredError mse;
  EXPECT_EQ(mse.name(), "mean_squared_error");
  EXPECT_NEAR(update_once(mse, Tensor::from_vector<float>({2, 1}, {1, 2}), Tensor::from_vector<float>({2, 1}, {0, 0})),
              2.5f, 1e-6);
  // A second batch of one sample with error 9: (1 + 4 + 9) / 3.
  EXPECT_NEAR(update_once(mse, Tensor::from_vector<float>({1, 1}, {3}), Tensor::from_vector<float>({1, 1}, {0})),
              14.f / 3.f, 1e-6);
  mse.reset();
  EXPECT_EQ(mse.result(), 0.f);
}

TEST(Metrics, SampleWeightsOfShapeBOrB1AreEquivalent) {
  metrics::BinaryAccuracy a({.threshold = 0.65});
  metrics::BinaryAccuracy b({.threshold = 0.65});
  Tensor t = Tensor::from_vector<float>({3, 1}, {1, 1, 0});
  Tensor p = Tensor::from_vector<float>({3, 1}, {0.6f, 0.7f, 0.2f});
  float ra = update_once(a, t, p, Tensor::from_vector<float>({3}, {2, 1, 1}));
  float rb = update_once(b, t, p, Tensor::from_vector<float>({3, 1}, {2, 1, 1}));
  EXPECT_NEAR(ra, 0.5f, 1e-6);
  EXPECT_NEAR(rb, 0.5f, 1e-6);
}

}  // namespace metric_test
