// MelSpectrogram against real Keras 3: tests/data/mel_spectrogram_golden.json
// (tests/reference/make_mel_spectrogram_goldens.py): hann, hamming and no window, even and
// odd sequence_length, sequence_length below fft_length, strides that do and do not divide
// it, mag_exp 1, 1.5 and 2, power_to_db on and off with a clamping top_db, ref_power,
// min_power and the frequency range. Outputs and gradients within 1e-5 (layer_golden_case.h).
#include <gtest/gtest.h>

#include "../io/test_util.h"
#include "golden_json.h"
#include "layer_golden_case.h"
#include "layers/core/input_layer.h"
#include "layers/preprocessing/mel_spectrogram.h"

namespace strata::mel_spectrogram_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& mel_goldens() { return testing::golden_file("mel_spectrogram_golden.json"); }

std::vector<std::string> mel_case_names() {
  std::vector<std::string> names;
  for (const auto& c : mel_goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

class MelSpectrogramGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(MelSpectrogramGolden, MatchesKeras) {
  for (const auto& c : mel_goldens().at("cases")) {
    if (c.at("name") == GetParam()) return testing::expect_matches_keras_case(c);
  }
  FAIL() << "no case " << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Keras3, MelSpectrogramGolden, ::testing::ValuesIn(mel_case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(MelSpectrogram, KerassDefaultsAndShapes) {
  // sequence_length defaults to fft_length, max_freq to sampling_rate / 2; no weights.
  layers::MelSpectrogram mel({.fft_length = 64, .sequence_stride = 16, .num_mel_bins = 20});
  auto y = mel(Input({100}));
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 20, 1 + 100 / 16}));
  EXPECT_TRUE(mel.weights().empty());
  auto& impl = static_cast<layers::MelSpectrogramImpl&>(mel.impl());
  EXPECT_EQ(impl.options.sequence_length, 64);
  EXPECT_EQ(impl.options.max_freq, 8000.0);
}

TEST(MelSpectrogram, TheFilterbankIsKerassTriangles) {
  // Each column a triangle peaking at most 1; the 0 Hz row zero.
  const Tensor m = layers::linear_to_mel_weight_matrix(8, 33, 8000, 20, 4000);
  ASSERT_EQ(m.shape(), (Shape{33, 8}));
  for (std::int64_t j = 0; j < 8; ++j) {
    EXPECT_EQ(m.data<float>()[j], 0.0f);
    float peak = 0.0f;
    for (std::int64_t k = 0; k < 33; ++k) peak = std::max(peak, m.data<float>()[k * 8 + j]);
    EXPECT_GT(peak, 0.0f);
    EXPECT_LE(peak, 1.0f);
  }
}

TEST(MelSpectrogram, KerassRefusalsAndStratasAreRefusedByName) {
  EXPECT_THROW_WITH(layers::MelSpectrogram({.fft_length = 32, .sequence_length = 64}), ValueError,
                    "`fft_length` must be greater than or equal to");
  EXPECT_THROW_WITH(layers::MelSpectrogram({.window = "blackman"}), ValueError, "must be one of `\"hann\"`");
  layers::MelSpectrogram too_short({.fft_length = 64, .name = "short"});
  EXPECT_THROW_WITH(too_short(Input({32})), ShapeError, "MelSpectrogram 'short'", "reflect padding");
  layers::MelSpectrogram rank3({.fft_length = 8, .name = "r3"});
  EXPECT_THROW_WITH(rank3(Input({32, 2})), ShapeError, "rank 2");
}

}  // namespace
}  // namespace strata::mel_spectrogram_golden_test
