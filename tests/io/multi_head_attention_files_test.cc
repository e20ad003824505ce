// A Transformer block (causal MultiHeadAttention, residuals, LayerNormalization, a
// feed-forward), a MultiHeadAttention returning its scores with value_dim and
// output_shape, one with use_gate and a causal sliding_window, and two EinsumDense layers,
// saved by real Keras 3
// (tests/reference/make_multi_head_attention_goldens.py: tests/data/multi_head_attention/):
// they load from .keras and .h5 and predict what Keras predicted, and come back the
// same when Strata saves them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/model_config.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "test_util.h"

namespace strata::multi_head_attention_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/multi_head_attention/";

void expect_predicts_golden(Model& model, const std::string& name, const std::string& what) {
  testing::expect_predicts_golden(model, kDir + name, what);
}

class MultiHeadAttentionFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(MultiHeadAttentionFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(MultiHeadAttentionFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, MultiHeadAttentionFiles,
                         ::testing::Values("transformer_block", "mha_scores", "einsum_dense", "mha_gate_window"));

// Keras writes a call by keyword as it was made: mha(query=x, value=x) is a node with no
// positional arguments and the tensors among its kwargs. Such a file loads as the
// positional one does.
TEST(MultiHeadAttentionFiles, ACallByKeywordLoadsAsThePositionalOne) {
  Model positional = models::load_model(kDir + "transformer_block.keras");
  nlohmann::json config = nlohmann::json::parse(models::to_json(positional));
  bool rewritten = false;
  for (auto& layer : config["config"]["layers"]) {
    if (layer["class_name"] != "MultiHeadAttention") continue;
    nlohmann::json& node = layer["inbound_nodes"][0];
    ASSERT_EQ(node["args"].size(), 2u);
    node["kwargs"]["query"] = node["args"][0];
    node["kwargs"]["value"] = node["args"][1];
    node["args"] = nlohmann::json::array();
    rewritten = true;
  }
  ASSERT_TRUE(rewritten);
  Model by_keyword = models::model_from_json(config.dump());
  by_keyword.set_weights(positional.get_weights());
  expect_predicts_golden(by_keyword, "transformer_block", "called by keyword");
}

}  // namespace
}  // namespace strata::multi_head_attention_files_test
