// Models whose Softmax and BatchNormalization take masks, saved by real Keras 3
// (tests/reference/make_mask_consumer_goldens.py: tests/data/mask_consumers/): a Softmax
// given mask= from an Input; an Embedding(mask_zero) whose mask Keras records as the
// Softmax's and the BatchNormalization's `mask` argument, computed by a NotEqual
// operation node; masks merged by Add and Concatenate before GlobalAveragePooling1D; the
// same mask recorded as an LSTM's and a Bidirectional GRU's `mask` argument. They load, predict what Keras predicted, come back the same from
// Strata's files, and one training step on the BatchNormalization model moves every
// weight (the moving statistics by the masked moments) as Keras's train_on_batch did.
#include <gtest/gtest.h>

#include "io/model_config.h"
#include "layers/core/embedding.h"
#include "layers/core/input_layer.h"
#include "layers/merging/concatenate.h"
#include "layers/merging/merge.h"
#include "layers/pooling/global_pooling.h"
#include "io/saving.h"
#include "keras_test_util.h"
#include "losses/losses.h"
#include "optimizers/optimizers.h"
#include "test_util.h"

namespace strata::mask_consumers_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/mask_consumers/";

class MaskConsumerFiles : public ::testing::TestWithParam<std::string> {};

TEST_P(MaskConsumerFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, MaskConsumerFiles,
                         ::testing::Values("softmax_mask_argument", "embedding_softmax", "embedding_batch_norm",
                                           "merge_masks", "recurrent_masks"));

TEST(MaskConsumerFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, "softmax_mask_argument");
  // The Embedding's mask reaches the Softmax and the BatchNormalization through an
  // operation node (NotEqual), which Strata writes in .keras files only (Keras 3.15.1
  // cannot read its own .h5 of these models either).
  for (const std::string name : {"embedding_softmax", "embedding_batch_norm", "merge_masks", "recurrent_masks"}) {
    testing::ScratchDir scratch;
    for (const std::string from : {".keras", ".h5"}) {
      Model model = models::load_model(kDir + name + from);
      model.save(scratch.file("again.keras"));
      Model again = models::load_model(scratch.file("again.keras"));
      testing::expect_predicts_golden(again, kDir + name, "Strata's " + name + ".keras (from " + from + ")");
      EXPECT_THROW_WITH(model.save(scratch.file("again.h5")), NotImplementedError, "NotEqual", "save the model as .keras");
    }
  }
}

const nlohmann::json& layer_named(const nlohmann::json& config, const std::string& name) {
  for (const auto& layer : config["config"]["layers"]) {
    if (layer["name"] == name) return layer;
  }
  throw std::runtime_error("no layer " + name);
}

// The merge model built in C++ (no operation nodes: the masks are the merge layers' own,
// ElementwiseMergeImpl::compute_mask and ConcatenateImpl::compute_mask) with the Keras
// file's weights predicts what Keras predicted: the pooling averages over the steps
// Keras's merged masks keep.
TEST(MaskConsumerFiles, MergeLayersCombineMasksAsKerasDoes) {
  Model keras = models::load_model(kDir + "merge_masks.keras");
  auto a = Input({5}, {.dtype = DType::int32}), b = Input({5}, {.dtype = DType::int32});
  layers::Embedding embed_a(9, 3, {.mask_zero = true}), embed_b(9, 3, {.mask_zero = true});
  auto ea = embed_a(a), eb = embed_b(b);
  auto added = layers::GlobalAveragePooling1D()(layers::Add()({ea, eb})[0]);
  auto steps = layers::GlobalAveragePooling1D()(layers::Concatenate(1)({ea, eb})[0]);
  auto features = layers::GlobalAveragePooling1D()(layers::Concatenate()({ea, eb})[0]);
  Model strata({a, b}, {added, steps, features});
  embed_a.set_weights(keras.get_layer("embed_a").get_weights());
  embed_b.set_weights(keras.get_layer("embed_b").get_weights());
  testing::expect_predicts_golden(strata, kDir + "merge_masks", "merge masks computed by the layers");
}

// Keras writes a mask given with the call in the node's kwargs; so does Strata.
TEST(MaskConsumerFiles, StrataWritesTheMaskArgumentWhereKerasDoes) {
  Model model = models::load_model(kDir + "softmax_mask_argument.keras");
  const nlohmann::json config = io::model_to_config(model);
  const auto& node = layer_named(config, "softmax")["inbound_nodes"][0];
  ASSERT_EQ(node["args"].size(), 1u);
  EXPECT_EQ(node["kwargs"]["mask"]["class_name"], "__keras_tensor__");
  EXPECT_EQ(node["kwargs"]["mask"]["config"]["keras_history"], nlohmann::json::parse(R"(["mask", 0, 0])"));
}

// One train_on_batch step of Keras (SGD 0.1, mean squared error, the whole batch): the
// loss and every weight after it, the BatchNormalization's moving statistics moved by the
// moments over the steps the Embedding's mask keeps.
TEST(MaskConsumerFiles, OneTrainingStepOnTheMaskedBatchNormalizationMovesEveryWeightAsKeras) {
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(kDir + "embedding_batch_norm" + ext);
    testing::expect_sgd_step_matches_keras(model, kDir + "embedding_batch_norm", 0.1, ext);
  }
}

}  // namespace
}  // namespace strata::mask_consumers_files_test
