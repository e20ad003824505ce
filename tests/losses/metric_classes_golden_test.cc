// Metric classes with arguments (Precision, Recall, AUC ROC/PR, F1Score, top-k
// accuracies, RootMeanSquaredError, R2Score), streamed over two batches with and without
// sample weights, then reset, against real Keras 3 ("class_cases" in
// tests/data/metrics_golden.json).
#include <gtest/gtest.h>

#include "core/program.h"
#include "losses/confusion_metrics.h"
#include "losses/score_metrics.h"
#include "tests/training_golden.h"

using namespace strata;

namespace metric_classes_golden_test {

using nlohmann::json;

namespace {

metrics::Metric make_metric(const std::string& cls, const json& c) {
  if (cls == "Precision") return metrics::Precision({.thresholds = c.value("thresholds", 0.5)});
  if (cls == "Recall") return metrics::Recall({.thresholds = c.value("thresholds", 0.5)});
  if (cls == "AUC") {
    return metrics::AUC({.num_thresholds = c.value("num_thresholds", 200), .curve = c.value("curve", "ROC")});
  }
  if (cls == "F1Score") {
    std::optional<double> threshold;
    if (c.contains("threshold")) threshold = c.at("threshold").get<double>();
    return metrics::F1Score({.average = c.at("average"), .threshold = threshold});
  }
  if (cls == "TopKCategoricalAccuracy") return metrics::TopKCategoricalAccuracy({.k = c.value("k", 5)});
  if (cls == "SparseTopKCategoricalAccuracy") return metrics::SparseTopKCategoricalAccuracy({.k = c.value("k", 5)});
  if (cls == "RootMeanSquaredError") return metrics::RootMeanSquaredError();
  if (cls == "R2Score") {
    return metrics::R2Score({.class_aggregation = c.value("class_aggregation", "uniform_average")});
  }
  throw std::runtime_error("unknown metric class in golden file: " + cls);
}

}  // namespace

TEST(MetricClasses, MatchKerasGoldensOverTwoBatches) {
  json golden = golden::load_golden("metrics_golden.json");
  ASSERT_GE(golden.at("class_cases").size(), 32u);
  for (const auto& c : golden.at("class_cases")) {
    const auto& batches = c.at("batches");
    const bool weighted = !batches[0].at("sample_weight").is_null();
    SCOPED_TRACE(c.at("class").get<std::string>() + " " + c.at("config").dump() + (weighted ? " weighted" : ""));
    Tensor t0 = golden::golden_tensor(batches[0].at("y_true"));
    Tensor p0 = golden::golden_tensor(batches[0].at("y_pred"));
    Graph g;
    Output t = g.placeholder({t0.shape().with_dim(0, kUnknownDim)}, "y_true");
    Output p = g.placeholder({p0.shape().with_dim(0, kUnknownDim)}, "y_pred");
    Output w = weighted ? g.placeholder({Shape{kUnknownDim}}, "sample_weight") : Output{};
    metrics::Metric metric = make_metric(c.at("class"), c.at("config"));
    // Keras numbers repeated auto names per process ("precision_3"); compare the base.
    std::string keras_name = c.at("name");
    if (auto u = keras_name.find_last_of('_'); u != std::string::npos &&
        keras_name.find_first_not_of("0123456789", u + 1) == std::string::npos) {
      keras_name = keras_name.substr(0, u);
    }
    EXPECT_EQ(metric.name(), keras_name);
    std::vector<Output> stats = metric.build(t, p, w);
    std::vector<Output> feeds{t, p};
    if (weighted) feeds.push_back(w);
    Program program(g, feeds, stats);
    for (int epoch = 0; epoch < 2; ++epoch) {  // reset between "epochs" gives the same stream again
      for (const auto& b : batches) {
        std::vector<Tensor> values{golden::golden_tensor(b.at("y_true")), golden::golden_tensor(b.at("y_pred"))};
        if (weighted) values.push_back(golden::golden_tensor(b.at("sample_weight")));
        metric.update(program.run(values));
        double expected = b.at("result");
        EXPECT_NEAR(metric.result(), expected, 1e-5 + 1e-4 * std::fabs(expected)) << "epoch " << epoch;
      }
      metric.reset();
      EXPECT_EQ(metric.result(), 0.f);
    }
  }
}

}  // namespace metric_classes_golden_test
