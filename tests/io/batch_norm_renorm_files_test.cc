// A model with a renormalizing BatchNormalization, trained and saved by real Keras 3.15.1
// (tests/reference/make_batch_norm_renorm_goldens.py: tests/data/batch_norm_renorm/): its
// .keras and .h5 files load with the seven statistics, predict what Keras predicted, come
// back the same from Strata's files of both formats, and one more training step moves every
// weight (renorm's statistics and the moving variance derived from moving_stddev among them)
// as Keras's train_on_batch did. The same model from tf_keras 2.21 (Keras 2), whose
// renormalization keeps the same seven weights and takes the same step, likewise.
#include <gtest/gtest.h>

#include "io/saving.h"
#include "keras_test_util.h"
#include "test_util.h"

namespace strata::batch_norm_renorm_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/batch_norm_renorm/";

TEST(BatchNormRenormFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, "renorm_mlp");
}

TEST(BatchNormRenormFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, "renorm_mlp");
}

TEST(BatchNormRenormFiles, OneTrainingStepMovesEveryWeightAsKeras) {
  for (const std::string ext : {".keras", ".h5"}) {
    Model model = models::load_model(kDir + "renorm_mlp" + ext);
    testing::expect_sgd_step_matches_keras(model, kDir + "renorm_mlp", 0.1, ext);
  }
}

TEST(BatchNormRenormFiles, TfKerasFilesLoadPredictAndTrainAsTfKeras) {
  Model model = models::load_model(kDir + "renorm_mlp_tf_keras.h5");
  testing::expect_predicts_golden(model, kDir + "renorm_mlp_tf_keras", "tf_keras's renorm_mlp_tf_keras.h5");
  testing::expect_sgd_step_matches_keras(model, kDir + "renorm_mlp_tf_keras", 0.1, "tf_keras's .h5");
}

}  // namespace
}  // namespace strata::batch_norm_renorm_files_test
