// Options of existing classes Strata used to refuse, against real Keras 3.15.1:
// tests/data/layer_options_golden.json (tests/reference/make_layer_options_goldens.py):
// LayerNormalization's rms_scaling, Flatten's and ZeroPadding1D's channels_first. Outputs
// and gradients within 1e-5 (layer_golden_case.h); Cropping1D, which Keras gives no
// data_format, refuses channels_first.
#include <gtest/gtest.h>

#include "core/error.h"
#include "golden_json.h"
#include "layer_golden_case.h"
#include "layers/reshaping/spatial_padding.h"

namespace strata::layer_options_golden_test {
namespace {

constexpr const char* kGoldens = "layer_options_golden.json";

class LayerOptionsGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LayerOptionsGolden, MatchesKeras) { testing::expect_matches_keras_case(testing::golden_case(kGoldens, GetParam())); }

INSTANTIATE_TEST_SUITE_P(Keras3, LayerOptionsGolden, ::testing::ValuesIn(testing::golden_case_names(kGoldens)),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(LayerOptions, Cropping1DTakesNoDataFormat) {
  EXPECT_THROW(layers::Cropping<1>(layers::IntPair{1, 1}, {.data_format = "channels_first"}), ValueError);
  EXPECT_NO_THROW(layers::ZeroPadding<1>(layers::IntPair{1, 1}, {.data_format = "channels_first"}));
}

}  // namespace
}  // namespace strata::layer_options_golden_test
