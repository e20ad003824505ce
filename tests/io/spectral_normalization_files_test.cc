// SpectralNormalization in a model saved by real Keras 3 after one fit step
// (tests/reference/make_spectral_normalization_goldens.py: tests/data/spectral_normalization/):
// Conv2D and Dense each wrapped. Keras 3 keeps the wrapped kernel twice in .keras (the
// wrapper's vars/0 beside vector_u, and layer/vars); the files load, predict what Keras
// predicted, and come back the same when Strata saves them.
#include <gtest/gtest.h>

#include "keras_test_util.h"

namespace strata::spectral_normalization_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/spectral_normalization/";

TEST(SpectralNormalizationFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, "sn_cnn");
}

TEST(SpectralNormalizationFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, "sn_cnn");
}

}  // namespace
}  // namespace strata::spectral_normalization_files_test
