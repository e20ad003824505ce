// Models with attention and the newer normalizations, saved by real Keras 3
// (tests/reference/make_attention_goldens.py: tests/data/attention/): they load in both
// formats and predict what Keras predicted, including a call made with
// use_causal_mask=True and one returning its attention scores as a second output; saved
// again by Strata, they come back the same, call arguments included. And tf.keras's
// deprecated causal config key.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/hdf5.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "test_util.h"

namespace strata::attention_files_test {
namespace {

using testing::expect_close;
using testing::load_numbered;

const std::string kDir = std::string(STRATA_TEST_DATA) + "/attention/";

void expect_predicts_golden(Model& model, const std::string& name, const std::string& what) {
  testing::expect_predicts_golden(model, kDir + name, what);
}

class AttentionFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(AttentionFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, GetParam(), {".keras"});
}

INSTANTIATE_TEST_SUITE_P(Keras3, AttentionFiles, ::testing::Values("attention_block", "attention_scores"));

// The call's keyword arguments are saved where Keras saves them, in the node's kwargs.
TEST(AttentionFiles, CallArgumentsAreSavedInTheNodesKwargs) {
  Model model = models::load_model(kDir + "attention_block.keras");
  const nlohmann::json config = nlohmann::json::parse(models::to_json(model));
  bool found = false;
  for (const auto& layer : config.at("config").at("layers")) {
    if (layer.at("name") != "self_attention") continue;
    found = true;
    EXPECT_EQ(layer.at("inbound_nodes").at(0).at("kwargs"), (nlohmann::json{{"use_causal_mask", true}}));
  }
  EXPECT_TRUE(found);
}

// tf.keras's deprecated `causal` config key, as older tf.keras versions wrote it
// (tests/reference/make_attention_causal_config_goldens.py: tf_keras 2.21's predictions with
// causal=True): it masks every call, as use_causal_mask=True does, and Strata records and
// writes it so, as Keras 3 writes a causal call (no causal key).
TEST(AttentionFiles, TfKerasCausalConfigMasksEveryCall) {
  Model model = models::load_model(kDir + "causal_config.h5");
  expect_predicts_golden(model, "causal_config", "causal_config.h5");
  const nlohmann::json config = nlohmann::json::parse(models::to_json(model));
  int causal_calls = 0;
  for (const auto& layer : config.at("config").at("layers")) {
    if (layer.at("class_name") != "Attention" && layer.at("class_name") != "AdditiveAttention") continue;
    EXPECT_FALSE(layer.at("config").contains("causal")) << layer.dump();
    causal_calls += layer.at("inbound_nodes").at(0).at("kwargs").value("use_causal_mask", false);
  }
  EXPECT_EQ(causal_calls, 2);
  testing::ScratchDir scratch;
  model.save(scratch.file("again.keras"));
  Model again = models::load_model(scratch.file("again.keras"));
  expect_predicts_golden(again, "causal_config", "causal_config.h5 saved by Strata");
}

}  // namespace
}  // namespace strata::attention_files_test
