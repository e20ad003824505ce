// STFTSpectrogram against real Keras 3: tests/data/stft_spectrogram_golden.json
// (tests/reference/make_stft_spectrogram_goldens.py): every mode but angle, several
// windows and scalings, padding, channels, channels_first, expand_dims. Outputs and
// gradients within 1e-5 (layer_golden_case.h), on the kernels Keras initialized, which a
// fresh Strata layer makes too.
#include <gtest/gtest.h>

#include "../io/test_util.h"
#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/core/input_layer.h"
#include "layers/preprocessing/stft_spectrogram.h"

namespace strata::stft_spectrogram_golden_test {
namespace {

using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("stft_spectrogram_golden.json"); }

class STFTSpectrogramGolden : public ::testing::TestWithParam<std::string> {};

const ordered_json& golden_case(const std::string& name) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no case " + name);
}

TEST_P(STFTSpectrogramGolden, MatchesKeras) { testing::expect_matches_keras_case(golden_case(GetParam())); }

TEST_P(STFTSpectrogramGolden, AFreshLayerHasKerassKernels) {
  const ordered_json& c = golden_case(GetParam());
  Layer layer = io::layer_from_config(ordered_json{{"class_name", c.at("class_name")}, {"config", c.at("config")}}, {});
  layer(Input(testing::golden_tensor(c.at("inputs")[0]).shape().without_batch()));
  ASSERT_EQ(layer.weights().size(), c.at("weights").size());
  for (std::size_t i = 0; i < layer.weights().size(); ++i) {
    EXPECT_TRUE(testing::golden_near(layer.weights()[i].value(), c.at("weights")[i], layer.weights()[i].path()));
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, STFTSpectrogramGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(STFTSpectrogram, KerassRefusalsAndStratasAreRefusedByName) {
  EXPECT_THROW_WITH(layers::STFTSpectrogram({.frame_length = 8, .frame_step = 9}), ValueError,
                    "`frame_step` should be a positive integer not greater than `frame_length`");
  EXPECT_THROW_WITH(layers::STFTSpectrogram({.frame_length = 8, .fft_length = 4}), ValueError,
                    "`fft_length` should be not less than `frame_length`");
  EXPECT_THROW_WITH(layers::STFTSpectrogram({.mode = "phase"}), ValueError, "Output mode is invalid");
  // SciPy needs a parameter for kaiser (Keras fails on the name alone), and has no "welch".
  EXPECT_THROW_WITH(layers::STFTSpectrogram({.window = "kaiser", .name = "s"}), NotImplementedError,
                    "STFTSpectrogram 's'", "window \"kaiser\"");
  EXPECT_THROW_WITH(layers::STFTSpectrogram({.window = "welch"}), NotImplementedError, "window \"welch\"");
  EXPECT_THROW_WITH(layers::STFTSpectrogram({.padding = "causal"}), ValueError, "Padding is invalid");
  // Keras's defaults: frame_step frame_length / 2, fft_length the next power of two.
  layers::STFTSpectrogram s({.frame_length = 12});
  auto y = s(Input({40, 3}));
  EXPECT_EQ(y.shape(), (Shape{kUnknownDim, 5, 3 * 9}));
}

}  // namespace
}  // namespace strata::stft_spectrogram_golden_test
