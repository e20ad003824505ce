// Every loss x from_logits x reduction x sample_weight against values from real Keras 3
// (tests/data/losses_golden.json, made by tests/reference/make_training_goldens.py).
#include <gtest/gtest.h>

#include "core/program.h"
#include "losses/crossentropy.h"
#include "losses/more_losses.h"
#include "losses/regression_losses.h"
#include "tests/training_golden.h"

using namespace strata;

namespace losses_golden_test {

using nlohmann::json;

namespace {

losses::Loss make_loss(const std::string& name, const json& c) {
  std::string reduction = c.at("reduction");
  bool from_logits = c.value("from_logits", false);
  double ls = c.value("label_smoothing", 0.0);
  if (name == "mean_squared_error") return losses::MeanSquaredError({.reduction = reduction});
  if (name == "mean_absolute_error") return losses::MeanAbsoluteError({.reduction = reduction});
  if (name == "binary_crossentropy") {
    return losses::BinaryCrossentropy({.from_logits = from_logits, .label_smoothing = ls, .reduction = reduction});
  }
  if (name == "categorical_crossentropy") {
    return losses::CategoricalCrossentropy(
        {.from_logits = from_logits, .label_smoothing = ls, .reduction = reduction});
  }
  if (name == "sparse_categorical_crossentropy") {
    return losses::SparseCategoricalCrossentropy({.from_logits = from_logits, .reduction = reduction});
  }
  if (name == "huber") return losses::Huber({.delta = c.value("delta", 1.0), .reduction = reduction});
  if (name == "log_cosh") return losses::LogCosh({.reduction = reduction});
  if (name == "poisson") return losses::Poisson({.reduction = reduction});
  if (name == "kl_divergence") return losses::KLDivergence({.reduction = reduction});
  if (name == "hinge") return losses::Hinge({.reduction = reduction});
  if (name == "squared_hinge") return losses::SquaredHinge({.reduction = reduction});
  if (name == "categorical_hinge") return losses::CategoricalHinge({.reduction = reduction});
  if (name == "cosine_similarity") return losses::CosineSimilarity({.reduction = reduction});
  if (name == "binary_focal_crossentropy") {
    return losses::BinaryFocalCrossentropy({.apply_class_balancing = c.value("apply_class_balancing", false),
                                            .alpha = c.value("alpha", 0.25),
                                            .gamma = c.value("gamma", 2.0),
                                            .from_logits = from_logits,
                                            .label_smoothing = ls,
                                            .reduction = reduction});
  }
  throw std::runtime_error("unknown loss in golden file: " + name);
}

// Placeholders with an unknown batch dimension, as a model's targets have.
Output batch_placeholder(Graph& g, const Tensor& t, const std::string& name) {
  return g.placeholder({t.shape().with_dim(0, kUnknownDim), t.dtype()}, name);
}

}  // namespace

TEST(Losses, MatchKerasGoldens) {
  json golden = golden::load_golden("losses_golden.json");
  ASSERT_GE(golden.at("cases").size(), 248u);
  int index = 0;
  for (const auto& c : golden.at("cases")) {
    SCOPED_TRACE("case " + std::to_string(index++) + ": " + c.at("loss").get<std::string>() + " " +
                 c.at("config").dump() + (c.at("sample_weight").is_null() ? "" : " weighted"));
    Graph g;
    Tensor y_true = golden::golden_tensor(c.at("y_true"));
    Tensor y_pred = golden::golden_tensor(c.at("y_pred"));
    Output t = batch_placeholder(g, y_true, "y_true");
    Output p = batch_placeholder(g, y_pred, "y_pred");
    std::vector<Output> feeds{t, p};
    std::vector<Tensor> values{y_true, y_pred};
    Output w;
    if (!c.at("sample_weight").is_null()) {
      Tensor sw = golden::golden_tensor(c.at("sample_weight"));
      w = batch_placeholder(g, sw, "sample_weight");
      feeds.push_back(w);
      values.push_back(sw);
    }
    losses::Loss loss = make_loss(c.at("loss"), c.at("config"));
    Output value = loss(t, p, w);
    Program program(g, feeds, {value});
    golden::expect_matches_golden(program.run(values)[0], c.at("expected"));
  }
}

}  // namespace losses_golden_test
