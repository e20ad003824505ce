// The layer classes of issue #38 point 2 against real Keras 3.15.1:
// tests/data/keras_classes_golden.json (tests/reference/make_keras_classes_goldens.py) holds,
// per case, Keras's config, inputs, weights, outputs and the gradients of
// sum(output * projection) with respect to the input and every trainable weight. Each layer
// is made from Keras's own config (so reading it is checked too) and must match within 1e-5
// (layer_golden_case.h). The noise layers' cases are inference (the identity); their
// training draws are checked statistically in noise_layers_test.cc.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "golden_json.h"
#include "layer_golden_case.h"
#include "layers/keras_class.h"

using nlohmann::ordered_json;

namespace keras_classes_golden_test {

namespace {

const ordered_json& goldens() { return strata::testing::golden_file("keras_classes_golden.json"); }

// The classes the golden file covers that Strata supports; a case of another class fails
// AllCasesAreRun until its class joins.
const std::set<std::string> kSupported{
    "GaussianNoise",          "GaussianDropout",          "AlphaDropout",             "SpatialDropout3D",
    "ActivityRegularization", "RMSNormalization",         "AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D",
    "AdaptiveAveragePooling3D", "AdaptiveMaxPooling1D",   "AdaptiveMaxPooling2D",     "AdaptiveMaxPooling3D",
    "DepthwiseConv1D",        "SeparableConv1D"};

class KerasClassGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(KerasClassGolden, MatchesKeras) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == GetParam()) return strata::testing::expect_matches_keras_case(c);
  }
  FAIL() << "no case " << GetParam();
}

std::vector<std::string> supported_cases() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) {
    if (kSupported.count(c.at("class_name").get<std::string>())) names.push_back(c.at("name").get<std::string>());
  }
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, KerasClassGolden, ::testing::ValuesIn(supported_cases()),
                         [](const auto& info) { return strata::testing::test_name_of(info.param); });

}  // namespace

// Every class in the golden file is held to it, and each is registered.
TEST(KerasClassGoldens, EveryClassIsSupportedAndRegistered) {
  std::set<std::string> in_file;
  for (const auto& c : goldens().at("cases")) in_file.insert(c.at("class_name").get<std::string>());
  for (const auto& cls : in_file) EXPECT_TRUE(kSupported.count(cls)) << cls << " has goldens but is not run";
  for (const auto& cls : kSupported) EXPECT_NE(strata::layers::find_keras_class(cls), nullptr) << cls;
}

}  // namespace keras_classes_golden_test
