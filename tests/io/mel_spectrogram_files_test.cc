// MelSpectrogram in a model saved by real Keras 3
// (tests/reference/make_mel_spectrogram_goldens.py: tests/data/mel_spectrogram/): the
// layer's config read from .keras and .h5; the files predict what Keras predicted and come
// back the same when Strata saves them.
#include <gtest/gtest.h>

#include "keras_test_util.h"

namespace strata::mel_spectrogram_files_test {
namespace {

const std::string kMelDir = std::string(STRATA_TEST_DATA) + "/mel_spectrogram/";

TEST(MelSpectrogramFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kMelDir, "mel_dense");
}

TEST(MelSpectrogramFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kMelDir, "mel_dense");
}

}  // namespace
}  // namespace strata::mel_spectrogram_files_test
