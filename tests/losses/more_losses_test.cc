// The losses added after the crossentropies: numerical gradient checks (Keras values are
// in losses_golden_test), the multi-label ranking losses against hand-computed values,
// and a user loss written as a function of symbolic tensors.
#include <gtest/gtest.h>

#include <cmath>

#include "core/check_gradients.h"
#include "core/ops.h"
#include "core/program.h"
#include "losses/more_losses.h"
#include "losses/ranking_losses.h"
#include "strata.h"

using namespace strata;

namespace more_losses_test {

namespace {

const Tensor kRegTrue = Tensor::from_vector<float>({3, 4}, {0.5f, -1.f, 2.f, 0.3f, 0.f, 0.7f, -0.7f, 1.2f, 1.5f, 1.1f, -2.f, 0.25f});
const Tensor kRegPred = Tensor::from_vector<float>({3, 4}, {0.2f, -0.4f, 2.6f, 0.1f, 0.4f, 0.3f, -1.7f, 1.f, 1.f, 2.f, -1.f, 0.f});
const Tensor kPositive = Tensor::from_vector<float>({3, 4}, {0.5f, 1.f, 2.f, 0.3f, 0.1f, 0.7f, 0.7f, 1.2f, 1.5f, 1.1f, 2.f, 0.25f});
const Tensor kProb = Tensor::from_vector<float>({3, 3}, {0.6f, 0.3f, 0.1f, 0.25f, 0.15f, 0.6f, 0.5f, 0.9f, 0.4f});
const Tensor kCatTrue = Tensor::from_vector<float>({3, 3}, {1.f, 0.f, 0.f, 0.f, 0.f, 1.f, 0.2f, 0.5f, 0.3f});
const Tensor kMultiLabel = Tensor::from_vector<float>({3, 4}, {1.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 0.f, 0.f});
const Tensor kScores = Tensor::from_vector<float>({3, 4}, {1.3f, -0.4f, 0.2f, 0.5f, 0.4f, 0.3f, -1.7f, 1.1f, 0.8f, 2.f, -1.2f, 0.7f});
const Tensor kWeights = Tensor::from_vector<float>({3}, {1.f, 0.5f, 2.f});

void expect_gradients(const losses::Loss& loss, const Tensor& y_true, const Tensor& y_pred) {
  for (bool weighted : {false, true}) {
    SCOPED_TRACE(loss.name() + (weighted ? " weighted" : ""));
    std::vector<Tensor> inputs{y_true, y_pred};
    if (weighted) inputs.push_back(kWeights);
    auto result = check_gradients(
        [&](Graph&, const std::vector<Output>& in) { return loss(in[0], in[1], weighted ? in[2] : Output{}); },
        inputs, {.fixed_inputs = {0}});  // labels are data: only y_pred and the weights are perturbed
    EXPECT_TRUE(result.ok) << result.report;
  }
}

std::vector<float> per_sample(Output (*fn)(Output, Output), const Tensor& t, const Tensor& p) {
  Graph g;
  Output a = g.placeholder({t.shape(), t.dtype()}, "t");
  Output b = g.placeholder({p.shape(), p.dtype()}, "p");
  Program prog(g, {a, b}, {fn(a, b)});
  Tensor out = prog.run({t, p})[0];
  std::vector<float> v;
  for (std::int64_t i = 0; i < out.size(); ++i) v.push_back(out.item(i));
  return v;
}

}  // namespace

TEST(MoreLosses, GradientsMatchFiniteDifferences) {
  expect_gradients(losses::Huber(), kRegTrue, kRegPred);
  expect_gradients(losses::Huber({.delta = 0.5}), kRegTrue, kRegPred);
  expect_gradients(losses::LogCosh(), kRegTrue, kRegPred);
  expect_gradients(losses::Poisson(), kRegTrue, kPositive);
  expect_gradients(losses::KLDivergence(), kCatTrue, kProb);
  expect_gradients(losses::Hinge(), kMultiLabel, kScores);
  expect_gradients(losses::SquaredHinge(), kMultiLabel, kScores);
  expect_gradients(losses::CategoricalHinge(), kCatTrue, kProb);
  expect_gradients(losses::CosineSimilarity(), kRegTrue, kRegPred);
  expect_gradients(losses::BinaryFocalCrossentropy(), kCatTrue, kProb);
  expect_gradients(losses::BinaryFocalCrossentropy({.apply_class_balancing = true, .gamma = 1.5, .from_logits = true,
                                                    .label_smoothing = 0.1}),
                   kMultiLabel, kScores);
}

TEST(RankingLosses, GradientsMatchFiniteDifferences) {
  expect_gradients(losses::WeightedSigmoidCrossentropy({.pos_weight = 3.0}), kMultiLabel, kScores);
  expect_gradients(losses::RankHinge(), kMultiLabel, kScores);
  expect_gradients(losses::RankHinge({.margin = 0.5}), kMultiLabel, kScores);
  expect_gradients(losses::RankSigmoid(), kMultiLabel, kScores);
}

TEST(RankingLosses, MatchTheDocumentedFormulas) {
  auto softplus = [](double x) { return std::log1p(std::exp(x)); };
  // Weighted sigmoid crossentropy, pos_weight 3: (1 − t)z + (1 + 2t)·softplus(−z).
  auto wsce = per_sample([](Output t, Output p) { return losses::weighted_sigmoid_crossentropy(t, p, 3.0); },
                         kMultiLabel, kScores);
  auto hinge = per_sample([](Output t, Output p) { return losses::rank_hinge(t, p, 1.0); }, kMultiLabel, kScores);
  auto sig = per_sample(losses::rank_sigmoid, kMultiLabel, kScores);
  for (int b = 0; b < 3; ++b) {
    double ce = 0, h = 0, s = 0;
    int pairs = 0;
    for (int i = 0; i < 4; ++i) {
      double t = kMultiLabel.item(b * 4 + i), z = kScores.item(b * 4 + i);
      ce += (1 - t) * z + (1 + 2 * t) * softplus(-z);
      for (int j = 0; j < 4; ++j) {
        if (t == 1 && kMultiLabel.item(b * 4 + j) == 0) {
          double d = z - kScores.item(b * 4 + j);
          h += std::max(0.0, 1.0 - d);
          s += softplus(-d);
          ++pairs;
        }
      }
    }
    EXPECT_NEAR(wsce[b], ce / 4, 1e-5) << b;
    EXPECT_NEAR(hinge[b], h / pairs, 1e-5) << b;
    EXPECT_NEAR(sig[b], s / pairs, 1e-5) << b;
  }
  // A sample with no (positive, negative) pair contributes 0.
  Tensor all_negative = Tensor::from_vector<float>({1, 3}, {0.f, 0.f, 0.f});
  Tensor scores = Tensor::from_vector<float>({1, 3}, {0.1f, 0.2f, 0.3f});
  EXPECT_EQ(per_sample(losses::rank_sigmoid, all_negative, scores)[0], 0.f);
}

TEST(CustomLoss, AFunctionOfSymbolicTensorsBecomesGraphNodes) {
  losses::Loss custom = losses::from_function("my_loss", [](Output t, Output p) {
    return ops::reduce_mean(ops::abs(ops::sub(t, p)), {-1});
  });
  EXPECT_EQ(custom.name(), "my_loss");
  expect_gradients(custom, kRegTrue, kRegPred);
  // Trains a model like a built-in loss, and fitting adds no node.
  set_random_seed(3);
  auto in = Input({4});
  Model m(in, layers::Dense(4)(in));
  m.compile({.optimizer = optimizers::SGD({.learning_rate = 0.1}), .loss = custom});
  int nodes = m.graph().num_nodes();
  History h = m.fit(kRegTrue, kRegTrue, {.batch_size = 3, .epochs = 20, .verbose = 0});
  EXPECT_LT(h.history["loss"].back(), h.history["loss"].front());
  EXPECT_EQ(m.graph().num_nodes(), nodes);
}

TEST(Losses, NewIdentifiersResolve) {
  for (const char* id : {"huber", "log_cosh", "logcosh", "kld", "kl_divergence", "poisson", "hinge", "squared_hinge",
                         "categorical_hinge", "cosine_similarity", "binary_focal_crossentropy", "rank_hinge",
                         "rank_sigmoid"}) {
    EXPECT_NO_THROW(losses::get(id)) << id;
  }
}

}  // namespace more_losses_test
