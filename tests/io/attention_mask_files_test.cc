// Models with masks passed as tensors, saved by real Keras 3
// (tests/reference/make_attention_mask_goldens.py: tests/data/attention_masks/):
// MultiHeadAttention with attention_mask from an Input, the causal mask and an
// Embedding's mask; Attention with mask=[q_mask, v_mask], AdditiveAttention with
// mask=[None, v_mask], MultiHeadAttention with value_mask and key_mask; and a
// MultiHeadAttention with attention_mask saved by tf.keras 2. They load, predict what
// Keras predicted, come back the same from Strata's files, and Strata writes the masks
// where Keras does.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/model_config.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "layers/attention/attention.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "test_util.h"

namespace strata::attention_mask_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/attention_masks/";

void expect_predicts_golden(Model& model, const std::string& name, const std::string& what) {
  testing::expect_predicts_golden(model, kDir + name, what);
}

class AttentionMaskFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionMaskFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(AttentionMaskFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, AttentionMaskFiles, ::testing::Values("mha_attention_mask", "attention_masks"));

// tf.keras 2 writes the mask among the query reference's kwargs:
// [["x", 0, 0, {"value": ["v", 0, 0], "attention_mask": ["attention_mask", 0, 0], ...}]].
TEST(AttentionMaskFiles, ATfKerasFileLoadsAndPredictsWhatTfKerasPredicted) {
  Model model = models::load_model(kDir + "tf_keras_mha_attention_mask.h5");
  expect_predicts_golden(model, "tf_keras_mha_attention_mask", "tf.keras .h5");
  testing::ScratchDir dir;
  model.save(dir.file("again.h5"));
  Model again = models::load_model(dir.file("again.h5"));
  expect_predicts_golden(again, "tf_keras_mha_attention_mask", "Strata's .h5 of tf.keras's");
}

const nlohmann::json& layer_named(const nlohmann::json& config, const std::string& name) {
  for (const auto& layer : config["config"]["layers"]) {
    if (layer["name"] == name) return layer;
  }
  throw std::runtime_error("no layer " + name);
}

// Keras 3 writes tensors passed by keyword in the node's kwargs as __keras_tensor__
// objects, Attention's mask as a list with null for a mask not given; tf.keras writes
// ["layer", node, index] triples in each input reference's kwargs. So does Strata, and
// its build_config describes the layer's own inputs only.
TEST(AttentionMaskFiles, StrataWritesTheMasksWhereKerasDoes) {
  Model model = models::load_model(kDir + "attention_masks.keras");
  const nlohmann::json keras3 = io::model_to_config(model);
  const auto& mha = layer_named(keras3, "mha");
  const auto& kwargs = mha["inbound_nodes"][0]["kwargs"];
  EXPECT_EQ(kwargs["value_mask"]["class_name"], "__keras_tensor__");
  EXPECT_EQ(kwargs["value_mask"]["config"]["keras_history"], nlohmann::json::parse(R"(["v_mask", 0, 0])"));
  EXPECT_EQ(kwargs["key_mask"]["config"]["keras_history"], nlohmann::json::parse(R"(["v_mask", 0, 0])"));
  EXPECT_EQ(mha["inbound_nodes"][0]["args"].size(), 3u);  // query, value, key
  EXPECT_FALSE(mha["build_config"]["shapes_dict"].contains("key_mask_shape"));
  const auto& add = layer_named(keras3, "add_att")["inbound_nodes"][0];
  EXPECT_TRUE(add["kwargs"]["mask"][0].is_null());
  EXPECT_EQ(add["kwargs"]["mask"][1]["config"]["keras_history"][0], "v_mask");
  EXPECT_EQ(add["kwargs"]["return_attention_scores"], true);
  EXPECT_EQ(layer_named(keras3, "att")["build_config"]["input_shape"].size(), 2u);

  const nlohmann::json keras2 = io::model_to_config(model, io::ConfigDialect::keras2);
  const auto& ref = layer_named(keras2, "mha")["inbound_nodes"][0][0];
  EXPECT_EQ(ref[3]["value_mask"], nlohmann::json::parse(R"(["v_mask", 0, 0])"));
  EXPECT_EQ(ref[3]["value"], nlohmann::json::parse(R"(["v", 0, 0])"));
  const auto& att = layer_named(keras2, "att")["inbound_nodes"][0];
  ASSERT_EQ(att.size(), 2u);  // query and value, each with the call's kwargs
  EXPECT_EQ(att[1][3]["mask"], nlohmann::json::parse(R"([["q_mask", 0, 0], ["v_mask", 0, 0]])"));
}

// Keras's mask=[None, None] is a mask given: it replaces the inputs' masks by none (Keras
// fills mask from the inputs only when mask itself is None) and is written as
// "mask": [null, null]. Embedding(mask_zero) pads positions 2 and 3 of [1, 2, 0, 0].
TEST(AttentionMaskFiles, AMaskListOfNonesReplacesTheInputsMasksAndIsWrittenAsKerasDoes) {
  auto tokens = Input({4}, {.dtype = DType::int32});
  auto ones_q = Input({4}), ones_v = Input({4});
  auto e = layers::Embedding(10, 3, {.mask_zero = true})(tokens);
  auto from_inputs = layers::Attention()({e, e})[0];
  auto nones = layers::Attention({.name = "nones"})({e, e}, {.mask = {KerasTensor(), KerasTensor()}})[0];
  auto all_visible = layers::Attention()({e, e}, {.mask = {ones_q, ones_v}})[0];
  Model model({tokens, ones_q, ones_v}, {from_inputs, nones, all_visible});
  const std::vector<Tensor> xs{Tensor::from_vector<std::int32_t>(Shape{1, 4}, {1, 2, 0, 0}),
                               Tensor::from_vector<float>(Shape{1, 4}, {1, 1, 1, 1}),
                               Tensor::from_vector<float>(Shape{1, 4}, {1, 1, 1, 1})};
  const auto ys = model.predict(xs);
  EXPECT_EQ(ys[0].item(2 * 3), 0.f);  // the inputs' masks: a padded query gives zeros
  testing::expect_close(ys[1], ys[2], "mask=[None, None] against all-visible masks");

  const nlohmann::json config = io::model_to_config(model);
  EXPECT_EQ(layer_named(config, "nones")["inbound_nodes"][0]["kwargs"].value("mask", nlohmann::json()),
            nlohmann::json::parse("[null, null]"));
  Model again = models::model_from_json(config.dump());
  again.set_weights(model.get_weights());
  testing::expect_close(again.predict(xs)[1], ys[2], "mask=[None, None] read back");
}

// A tensor in a call's kwargs that the layer does not take stays refused, naming it.
TEST(AttentionMaskFiles, TensorsALayerDoesNotTakeAreRefused) {
  Model model = models::load_model(kDir + "attention_masks.keras");
  nlohmann::json config = io::model_to_config(model);
  for (auto& layer : config["config"]["layers"]) {
    if (layer["name"] == "cat") layer["inbound_nodes"][0]["kwargs"]["mask"] = layer["inbound_nodes"][0]["args"][0];
  }
  EXPECT_THROW_WITH(models::model_from_json(config.dump()), NotImplementedError, "layer 'cat'",
                    "tensors passed as keyword arguments");
}

}  // namespace
}  // namespace strata::attention_mask_files_test
