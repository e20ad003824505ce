// ReversibleEmbedding in models saved by real Keras 3
// (tests/reference/make_reversible_embedding_goldens.py: tests/data/reversible_embedding/):
// a small language model that embeds its ids and scores its vocabulary with the same layer
// called with reverse=True (tied, and untied with a soft cap). The reverse call is in the
// node's kwargs ({"reverse": true}; tf.keras-style .h5: the input reference's kwargs):
// the files load, predict what Keras predicted, and come back the same when Strata saves them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "io/model_config.h"
#include "io/saving.h"
#include "keras_test_util.h"

namespace strata::reversible_embedding_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/reversible_embedding/";

class ReversibleEmbeddingFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(ReversibleEmbeddingFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

TEST_P(ReversibleEmbeddingFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, ReversibleEmbeddingFiles, ::testing::Values("tied_lm", "untied_lm"));

// Strata writes the reverse call where Keras does: the second node's kwargs.
TEST(ReversibleEmbeddingFiles, TheReverseCallIsSavedInTheNodesKwargs) {
  Model model = models::load_model(kDir + "tied_lm.keras");
  const nlohmann::json config = nlohmann::json::parse(models::to_json(model));
  bool found = false;
  for (const auto& layer : config["config"]["layers"]) {
    if (layer["class_name"] != "ReversibleEmbedding") continue;
    ASSERT_EQ(layer["inbound_nodes"].size(), 2u);
    EXPECT_FALSE(layer["inbound_nodes"][0]["kwargs"].contains("reverse"));
    EXPECT_EQ(layer["inbound_nodes"][1]["kwargs"]["reverse"], true);
    found = true;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace strata::reversible_embedding_files_test
