// Models with attention and the newer normalizations, saved by real Keras 3
// (tests/reference/make_attention_goldens.py: tests/data/attention/): they load in both
// formats and predict what Keras predicted, including a call made with
// use_causal_mask=True and one returning its attention scores as a second output; saved
// again by Strata, they come back the same, call arguments included.
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

}  // namespace
}  // namespace strata::attention_files_test
