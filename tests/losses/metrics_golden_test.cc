// Streaming metrics resolved from the user's string (Keras 3's "accuracy" rules) and
// accumulated over two batches, against real Keras 3 (tests/data/metrics_golden.json).
#include <gtest/gtest.h>

#include "core/program.h"
#include "losses/metric.h"
#include "tests/training_golden.h"

using namespace strata;

namespace metrics_golden_test {

using nlohmann::json;

TEST(Metrics, MatchKerasGoldensOverTwoBatches) {
  json golden = golden::load_golden("metrics_golden.json");
  ASSERT_GE(golden.at("cases").size(), 22u);
  for (const auto& c : golden.at("cases")) {
    const auto& batches = c.at("batches");
    const bool weighted = !batches[0].at("sample_weight").is_null();
    SCOPED_TRACE(c.at("identifier").get<std::string>() + " resolved by Keras to " +
                 c.at("resolved_class").get<std::string>() + (weighted ? " weighted" : ""));
    Tensor t0 = golden::golden_tensor(batches[0].at("y_true"));
    Tensor p0 = golden::golden_tensor(batches[0].at("y_pred"));
    Graph g;
    Output t = g.placeholder({t0.shape().with_dim(0, kUnknownDim)}, "y_true");
    Output p = g.placeholder({p0.shape().with_dim(0, kUnknownDim)}, "y_pred");
    Output w = weighted ? g.placeholder({Shape{kUnknownDim}}, "sample_weight") : Output{};
    metrics::Metric metric = metrics::get(c.at("identifier"), t.shape(), p.shape());
    EXPECT_EQ(metric.name(), c.at("name").get<std::string>());
    std::vector<Output> stats = metric.build(t, p, w);
    std::vector<Output> feeds{t, p};
    if (weighted) feeds.push_back(w);
    Program program(g, feeds, stats);
    for (const auto& b : batches) {
      std::vector<Tensor> values{golden::golden_tensor(b.at("y_true")), golden::golden_tensor(b.at("y_pred"))};
      if (weighted) values.push_back(golden::golden_tensor(b.at("sample_weight")));
      metric.update(program.run(values));
      double expected = b.at("result");
      EXPECT_TRUE(golden::close_to_keras(metric.result(), expected))
          << "got " << metric.result() << ", Keras " << expected;
    }
    metric.reset();
    EXPECT_EQ(metric.result(), c.at("result_after_reset").get<double>());
  }
}

}  // namespace metrics_golden_test
