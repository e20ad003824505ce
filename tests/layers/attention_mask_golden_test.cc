// Masks passed as tensors with the call, against real Keras 3:
// tests/data/attention_mask_golden.json (tests/reference/make_attention_mask_goldens.py):
// MultiHeadAttention's attention_mask (3-D, broadcast, (T, S), float values, hidden rows,
// causal, returned scores), value_mask and key_mask, query_mask (which Keras ignores),
// the inputs' masks combined with them; Attention's and AdditiveAttention's
// mask=[query_mask, value_mask]. Outputs and gradients within 1e-5; a mask of a wrong
// shape is a ShapeError at definition; a model with a mask among its inputs predicts
// what the layer computes and trains.
#include <gtest/gtest.h>

#include "golden_json.h"
#include "layer_golden_case.h"
#include "io/layer_config.h"
#include "layers/attention/additive_attention.h"
#include "layers/attention/attention.h"
#include "layers/core/dense.h"
#include "layers/reshaping/flatten.h"
#include "layers/core/input_layer.h"
#include "layers/attention/multi_head_attention.h"
#include "losses/losses.h"
#include "models/model.h"
#include "optimizers/optimizers.h"
#include "../io/test_util.h"

namespace strata::attention_mask_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("attention_mask_golden.json"); }

const ordered_json& find_case(const std::string& name) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no golden case " + name);
}

class AttentionMaskGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionMaskGolden, MatchesKeras) { testing::expect_matches_keras_case(find_case(GetParam())); }

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, AttentionMaskGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(AttentionMaskGolden, KerasIgnoresAQueryMaskArgumentAndSoDoesStrata) {
  EXPECT_TRUE(find_case("mha_query_mask_argument_has_no_effect").at("query_mask_argument_ignored").get<bool>());
}

// The typed call passes masks as tensors: they become inputs of the layer's node, after
// the layer's own, flagged among the call's arguments.
TEST(AttentionMasks, ATypedCallRecordsTheMasksAsInputsOfTheNode) {
  auto q = Input({3, 6}), v = Input({5, 4}), am = Input({3, 5}), vm = Input({5});
  auto y = layers::MultiHeadAttention(2, 3)({q, v}, {.value_mask = vm, .attention_mask = am})[0];
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 3, 6}));
  const LayerCall& call = *y.call();
  ASSERT_EQ(call.inputs.size(), 4u);
  EXPECT_EQ(call.inputs[2].call(), vm.call());
  EXPECT_EQ(call.inputs[3].call(), am.call());
  EXPECT_EQ(call.arguments, (CallArguments{{"value_mask", true}, {"attention_mask", true}}));

  auto qm = Input({3});
  auto a = layers::Attention()({q, q}, {.mask = {qm, KerasTensor()}, .use_causal_mask = true})[0];
  ASSERT_EQ(a.call()->inputs.size(), 3u);
  // The list's None is recorded too (false): a list given replaces the inputs' masks.
  EXPECT_EQ(a.call()->arguments,
            (CallArguments{{"query_mask", true}, {"value_mask", false}, {"use_causal_mask", true}}));
}

// docs/attention.md's example, as written there.
TEST(AttentionMasks, TheDocumentedExampleBuilds) {
  auto q = layers::Input({5, 8}), v = layers::Input({7, 8});
  auto attention_mask = layers::Input({5, 7}), q_mask = layers::Input({5}), v_mask = layers::Input({7});
  auto a = layers::MultiHeadAttention(2, 4)({q, v}, {.attention_mask = attention_mask,
                                                     .use_causal_mask = true})[0];
  auto b = layers::MultiHeadAttention(2, 4)({q, v, v}, {.value_mask = v_mask, .key_mask = v_mask})[0];
  auto c = layers::Attention()({q, v}, {.mask = {q_mask, v_mask}})[0];
  auto d = layers::AdditiveAttention()({q, v}, {.mask = {KerasTensor(), v_mask}})[0];  // [None, v_mask]
  Model m({q, v, attention_mask, q_mask, v_mask}, {a, b, c, d});
  for (const auto& y : {a, b, c, d}) EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 5, 8}));
  EXPECT_EQ(m.model().inputs.size(), 5u);
}

TEST(AttentionMasks, AMaskOfAWrongShapeIsAShapeErrorNamingTheLayerAndShapes) {
  auto q = Input({3, 6}), v = Input({5, 4});
  layers::MultiHeadAttention mha(2, 3, {.name = "mha"});
  EXPECT_THROW_WITH(mha({q, v}, {.attention_mask = Input({3, 4})}), ShapeError, "MultiHeadAttention 'mha'",
                    "attention_mask", "(batch, T, S) = (None, 3, 5)", "(None, 3, 4)");
  EXPECT_THROW_WITH(mha({q, v}, {.attention_mask = Input({5, 3})}), ShapeError, "(None, 5, 3)");
  EXPECT_THROW_WITH(mha({q, v}, {.attention_mask = Input({3, 3, 5})}), ShapeError,
                    "(batch, num_heads, T, S) = (None, 2, 3, 5)", "(None, 3, 3, 5)");
  EXPECT_THROW_WITH(mha({q, v}, {.attention_mask = Input({2, 3, 5, 1})}), ShapeError, "(None, 2, 3, 5, 1)");
  EXPECT_THROW_WITH(mha({q, v}, {.value_mask = Input({4})}), ShapeError, "value_mask", "(batch, S) = (None, 5)",
                    "(None, 4)");
  EXPECT_THROW_WITH(mha({q, v}, {.key_mask = Input({5, 1})}), ShapeError, "key_mask", "(None, 5, 1)");
  // broadcast shapes are fine
  EXPECT_NO_THROW(mha({q, v}, {.attention_mask = Input({1, 5})}));

  layers::Attention att({.name = "att"});
  EXPECT_THROW_WITH(att({q, q}, {.mask = {Input({4}), Input({3})}}), ShapeError, "Attention 'att'", "query_mask",
                    "(batch, Tq) = (None, 3)", "(None, 4)");
  EXPECT_THROW_WITH(layers::AdditiveAttention({.name = "add"})({q, Input({5, 6})}, {.mask = {KerasTensor(), Input({3})}}),
                    ShapeError, "AdditiveAttention 'add'", "value_mask", "(None, 5)", "(None, 3)");
  EXPECT_THROW_WITH(att({q, q}, {.mask = {Input({3})}}), ValueError, "mask list of length 2 or 3");
  // A flag with no tensor behind it.
  EXPECT_THROW_WITH(mha.call_with({q, v}, {{"attention_mask", true}, {"value_mask", true}}), ValueError,
                    "MultiHeadAttention 'mha'", "cannot take 0 inputs");
}

// A model with the attention mask among its inputs predicts what the layer computes on
// the golden case (replayed through the model), and trains.
TEST(AttentionMasks, AModelWithAMaskInputPredictsKerassValuesAndTrains) {
  const auto& c = find_case("mha_value_key_masks_and_attention_mask");
  Layer mha = io::layer_from_config(ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});
  std::vector<Tensor> xs;
  std::vector<KerasTensor> ins;
  for (const auto& in : c.at("inputs")) xs.push_back(testing::golden_tensor(in));
  for (const auto& [name, value] : c.at("tensor_arguments").items()) xs.push_back(testing::golden_tensor(value));
  for (const auto& x : xs) ins.push_back(Input(x.shape().without_batch()));
  auto y = mha.call_with(ins, {{"value_mask", true}, {"key_mask", true}, {"attention_mask", true}})[0];
  Model model(ins, {y});
  std::vector<Tensor> weights;
  for (const auto& w : c.at("weights")) weights.push_back(testing::golden_tensor(w));
  mha.set_weights(weights);
  EXPECT_TRUE(testing::golden_near(model.predict(xs)[0], c.at("outputs")[0], "model output"));

  // Training: the target is the masked value mean, which attention learns to give.
  auto x = Input({4, 3}), am = Input({4, 4});
  auto h = layers::MultiHeadAttention(1, 4)({x, x}, {.attention_mask = am})[0];
  Model net({x, am}, {layers::Dense(1)(layers::Flatten()(h))});
  net.compile({.optimizer = optimizers::Adam({.learning_rate = 0.02}), .loss = losses::MeanSquaredError()});
  const std::int64_t n = 64;
  Tensor data(Shape{n, 4, 3}), masks(Shape{n, 4, 4}), targets(Shape{n, 1});
  for (std::int64_t i = 0; i < data.size(); ++i) data.data<float>()[i] = static_cast<float>((i * 37) % 11) / 11.f - 0.5f;
  for (std::int64_t i = 0; i < masks.size(); ++i) masks.data<float>()[i] = (i * 7 + i / 16) % 3 != 0 ? 1.f : 0.f;
  for (std::int64_t s = 0; s < n; ++s) targets.data<float>()[s] = data.data<float>()[s * 12] * masks.data<float>()[s * 16];
  const std::size_t nodes = net.model().calls.size();
  History history = net.fit({data, masks}, {targets}, {.batch_size = 16, .epochs = 15, .verbose = 0});
  const auto& loss = history.history.at("loss");
  EXPECT_LT(loss.back(), loss.front());
  EXPECT_EQ(net.model().calls.size(), nodes);
  EXPECT_EQ(net.predict({data, masks})[0].shape(), (Shape{n, 1}));
}

}  // namespace
}  // namespace strata::attention_mask_golden_test
