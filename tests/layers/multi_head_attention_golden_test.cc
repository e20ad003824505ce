// MultiHeadAttention and EinsumDense against real Keras 3:
// tests/data/multi_head_attention_golden.json
// (tests/reference/make_multi_head_attention_goldens.py): projections of every equation
// MultiHeadAttention uses and others; self, cross and keyed attention, value_dim,
// output_shape, no bias, causal, masks, returned scores, dropout configured. Outputs and
// gradients within 1e-5 (layer_golden_case.h); Keras's refusals are refusals here.
#include <gtest/gtest.h>

#include "../io/test_util.h"
#include "core/program.h"
#include "core/rng.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/attention/multi_head_attention.h"
#include "layers/core/dense.h"
#include "layers/core/einsum_dense.h"
#include "layers/core/input_layer.h"
#include "layers/merging/merge.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/reshaping/flatten.h"
#include "layers/reshaping/spatial_padding.h"
#include "losses/losses.h"
#include "models/model.h"
#include "optimizers/optimizers.h"

namespace strata::multi_head_attention_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("multi_head_attention_golden.json"); }

class MultiHeadAttentionGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(MultiHeadAttentionGolden, MatchesKeras) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == GetParam()) return testing::expect_matches_keras_case(c);
  }
  FAIL() << "no case " << GetParam();
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, MultiHeadAttentionGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(MultiHeadAttentionErrors, KerasRefusalsAreRefusedWithKerassWords) {
  const auto& errors = goldens().at("errors");
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_THROW_WITH(layers::EinsumDense("abc,cd->abd", Shape{5})(Input({3, 4})), ValueError,
                    errors[0].at("message").get<std::string>());
  EXPECT_THROW_WITH(layers::EinsumDense("ab,bc->ac", Shape{4}, {.bias_axes = "x"}), ValueError,
                    errors[1].at("message").get<std::string>());
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3)({Input({3, 6}), Input({4, 5}), Input({5, 5})}), ShapeError,
                    errors[3].at("message").get<std::string>());
}

TEST(MultiHeadAttentionErrors, WhatStrataDoesNotDoIsRefusedByName) {
  // An ellipsis where Keras takes none (the middle); one that would have to stand for fewer
  // than no axes (a leading one holds the batch axis at least).
  EXPECT_THROW_WITH(layers::EinsumDense("a...b,bc->a...c", Shape{4}), ValueError, "Invalid einsum equation");
  EXPECT_THROW_WITH(layers::EinsumDense("...ab,bc->...ac", Shape{3, 4})(Input({3})), ShapeError,
                    "expects an input of rank at least 3, got rank 2");
  // A batched kernel over the batch axis (a kernel as large as the batch).
  EXPECT_THROW_WITH(layers::EinsumDense("abc,acd->abd", Shape{3, 4})(Input({3, 5})), NotImplementedError,
                    "the kernel cannot span the batch axis");
  EXPECT_THROW_WITH(layers::EinsumDense("ab,bc->ac", Shape{4, 2})(Input({3})), ValueError, "output_shape (4, 2) gives 2");
  EXPECT_THROW_WITH(layers::EinsumDense("abc,cd->bad", Shape{3, 5}), NotImplementedError, "the batch");
  EXPECT_THROW_WITH(layers::EinsumDense("ab,bc->ac", Shape{4}, {.bias_axes = ""}), ValueError, "bias_axes is empty");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3, {.name = "mha"})({Input({2, 3, 6}), Input({3, 6})}),
                    NotImplementedError, "MultiHeadAttention 'mha'", "inputs of one rank");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3)({Input({2, 3, 6}), Input({2, 3, 6})}, {.use_causal_mask = true}),
                    NotImplementedError, "use_causal_mask over inputs of rank above 3");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3, {.attention_axes = layers::Axes{2, 1}})(
                        {Input({2, 3, 6}), Input({2, 3, 6})}),
                    NotImplementedError, "in increasing order");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3, {.attention_axes = layers::Axes{-1}})(
                        {Input({2, 3, 6}), Input({2, 3, 6})}),
                    NotImplementedError, "attention_axes -1");
  // A build that fails part way (the key's dim unknown) leaves no projection behind.
  layers::MultiHeadAttention half(2, 3);
  EXPECT_THROW(half({Input({3, 6}), Input({4, 6}), Input({4, kUnknownDim})}), ShapeError);
  EXPECT_TRUE(half.weights().empty());
  EXPECT_THROW_WITH(io::layer_from_config(ordered_json{{"class_name", "Attention"}, {"config", {{"causal", true}}}}, {}),
                    NotImplementedError, "'causal' = true", "use_causal_mask");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(0, 3), ValueError, "num_heads");
  EXPECT_THROW_WITH(layers::MultiHeadAttention(2, 3).call_with({Input({3, 6}), Input({3, 6})}, {{"training", true}}),
                    ValueError, "takes no call argument 'training'");
}

// The projections are sublayers: their weights are the layer's, in Keras's order, and a
// freshly built layer draws its kernels with Keras's fans (Glorot over the summed and
// kept axes: dim 6 in, heads x key_dim = 6 out gives a limit of 1).
TEST(MultiHeadAttention, ProjectionsAreSublayersWithKerasWeightNamesAndFans) {
  layers::MultiHeadAttention mha(2, 3, {.name = "mha"});
  mha({Input({4, 6}), Input({4, 6})});
  std::vector<std::string> paths;
  for (const auto& v : mha.weights()) paths.push_back(v.path());
  EXPECT_EQ(paths, (std::vector<std::string>{"mha/query/kernel", "mha/query/bias", "mha/key/kernel", "mha/key/bias",
                                             "mha/value/kernel", "mha/value/bias", "mha/attention_output/kernel",
                                             "mha/attention_output/bias"}));
  const Tensor kernel = mha.weights()[0].value();
  EXPECT_EQ(kernel.shape(), (Shape{6, 2, 3}));
  float largest = 0;
  for (std::int64_t i = 0; i < kernel.size(); ++i) largest = std::max(largest, std::fabs(kernel.item(i)));
  EXPECT_LE(largest, 1.0f);
  EXPECT_GT(largest, 0.5f);  // 36 draws from U(-1, 1)
}

// Dropout on the attention weights: only in training, the same mask for the same step
// (reproducible), another for another step, and every row still sums to what the kept
// weights give (inverted dropout).
TEST(MultiHeadAttention, DropoutActsInTrainingOnlyAndReproducibly) {
  layers::MultiHeadAttention mha(2, 3, {.dropout = 0.5, .seed = 7});
  auto x = Input({4, 6});
  auto outs = mha({x, x}, {.return_attention_scores = true});
  Graph g;
  Output feed = g.placeholder({Shape{kUnknownDim, 4, 6}, DType::float32});
  mha.impl().current_call = 0;
  mha.impl().current_arguments = {{"return_attention_scores", true}};
  const std::vector<Output> ys = mha.impl().call(g, {feed, feed});
  Program program(g, {feed}, {ys[0]});
  Tensor input(Shape{2, 4, 6});
  for (std::int64_t i = 0; i < input.size(); ++i) input.data<float>()[i] = 0.1f * static_cast<float>(i % 13) - 0.6f;
  const Tensor inference = program.run({input})[0];
  const Tensor step1 = program.run({input}, {.training = true, .step = 1})[0];
  const Tensor step1_again = program.run({input}, {.training = true, .step = 1})[0];
  const Tensor step2 = program.run({input}, {.training = true, .step = 2})[0];
  auto differs = [](const Tensor& a, const Tensor& b) {
    for (std::int64_t i = 0; i < a.size(); ++i) {
      if (a.item(i) != b.item(i)) return true;
    }
    return false;
  };
  EXPECT_TRUE(differs(inference, step1));
  EXPECT_FALSE(differs(step1, step1_again));
  EXPECT_TRUE(differs(step1, step2));
}

// A Transformer-style classifier trains: on a task only attention solves (the label is
// the first token's class, read at the last position, which sees the first only through
// causal attention; each step carries its token and its position, one-hot), the loss
// falls well below chance.
TEST(MultiHeadAttention, ACausalAttentionClassifierLearns) {
  set_random_seed(11);
  auto x = Input({5, 9});
  auto a = layers::MultiHeadAttention(2, 4)({x, x}, {.use_causal_mask = true})[0];
  auto h = layers::LayerNormalization()(layers::Add()({x, a})[0]);
  auto last = layers::Flatten()(layers::Cropping1D(layers::IntPair(4, 0))(h));  // the last position only
  Model model(x, layers::Dense(4)(last));
  model.compile({.optimizer = optimizers::Adam({.learning_rate = 0.01}),
                 .loss = losses::SparseCategoricalCrossentropy({.from_logits = true})});
  const std::int64_t n = 256;
  Tensor data(Shape{n, 5, 9});
  Tensor labels(Shape{n}, DType::int64);
  Philox rng(5, 1);
  for (std::int64_t s = 0; s < n; ++s) {
    for (std::int64_t t = 0; t < 5; ++t) {
      const auto token = static_cast<std::int64_t>(rng.uniform(static_cast<std::uint64_t>(s * 5 + t)) * 4) % 4;
      float* step = data.data<float>() + (s * 5 + t) * 9;
      for (std::int64_t f = 0; f < 9; ++f) step[f] = f == token || f == 4 + t ? 1.f : 0.f;
      if (t == 0) labels.data<std::int64_t>()[s] = token;
    }
  }
  History history = model.fit(data, labels, {.batch_size = 32, .epochs = 30, .verbose = 0});
  const auto& loss = history.history.at("loss");
  EXPECT_GT(loss.front(), 1.0);   // about ln 4 = 1.39 at first
  EXPECT_LT(loss.back(), 0.2);
}

}  // namespace
}  // namespace strata::multi_head_attention_golden_test
