// TimeDistributed given a mask, in files saved by Keras 3.15.1 (tests/data/time_distributed/,
// tests/reference/make_time_distributed_mask_goldens.py): the wrapped LSTM and
// GlobalAveragePooling1D get the mask step by step, as Keras's, from an Embedding's mask_zero
// (recorded as a NotEqual operation passed with each call) or from a mask input passed with
// the call; the mask passes on to the next TimeDistributed. The models load from .keras and
// .h5, predict what Keras predicted, and load back from the files Strata writes.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "keras_test_util.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/time_distributed.h"
#include "models/model.h"

using namespace strata;

namespace time_distributed_files_test {

namespace {

std::string dir() { return std::string(STRATA_TEST_DATA) + "/time_distributed/"; }

}  // namespace

TEST(TimeDistributedMaskFiles, AnEmbeddingsMaskReachesTheWrappedLayersAsKeras) {
  strata::testing::expect_keras_files_predict_golden(dir(), "td_embedding_mask");
  // The NotEqual operation has no tf.keras form: Strata writes this model back as .keras only.
  strata::testing::expect_resaved_files_predict_golden(dir(), "td_embedding_mask", {".keras", ".h5"}, {".keras"});
}

TEST(TimeDistributedMaskFiles, AMaskPassedWithTheCallAsKeras) {
  strata::testing::expect_keras_files_predict_golden(dir(), "td_mask_input");
  strata::testing::expect_resaved_files_predict_golden(dir(), "td_mask_input");
}

TEST(TimeDistributedMask, AMaskOfOtherStepsIsAShapeErrorNamingTheLayer) {
  layers::TimeDistributed td(layers::LSTM(4), {.name = "words"});
  try {
    td.call_with({Input({3, 5, 6}), Input({4, 5})}, {{"mask", true}});
    FAIL() << "a (batch, 4, 5) mask for 3 steps was accepted";
  } catch (const ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("TimeDistributed 'words'"), std::string::npos) << e.what();
  }
}

}  // namespace time_distributed_files_test
