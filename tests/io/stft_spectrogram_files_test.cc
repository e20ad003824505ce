// STFTSpectrogram in a model saved by real Keras 3
// (tests/reference/make_stft_spectrogram_goldens.py: tests/data/stft_spectrogram/): its
// real_kernel and imag_kernel are weights, read from .keras and .h5; the files predict
// what Keras predicted and come back the same when Strata saves them.
#include <gtest/gtest.h>

#include "keras_test_util.h"

namespace strata::stft_spectrogram_files_test {
namespace {

const std::string kDir = std::string(STRATA_TEST_DATA) + "/stft_spectrogram/";

TEST(STFTSpectrogramFiles, KerasFilesLoadAndPredictWhatKerasPredicted) {
  testing::expect_keras_files_predict_golden(kDir, "stft_dense");
}

TEST(STFTSpectrogramFiles, SavedByStrataTheyComeBackTheSame) {
  testing::expect_resaved_files_predict_golden(kDir, "stft_dense");
}

}  // namespace
}  // namespace strata::stft_spectrogram_files_test
