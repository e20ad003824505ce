// Conv3D, Conv1DTranspose, Conv3DTranspose, the 3-D pooling, padding, cropping and
// upsampling layers against real Keras 3: tests/data/conv3d_golden.json (written by
// tests/reference/make_conv3d_goldens.py) holds, per case, Keras's config, input,
// weights, output and the gradients of sum(output * projection) for the input and the
// trainable weights. Each layer is made from Keras's config and must match within 1e-5
// absolute + 1e-5 relative; the same layer written in C++ must have Keras's config.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>

#include "golden_json.h"
#include "io/layer_config.h"
#include "layer_golden_case.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/core/input_layer.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"

namespace strata::conv3d_golden_test {
namespace {

using namespace strata::layers;
using nlohmann::ordered_json;

const ordered_json& goldens() { return testing::golden_file("conv3d_golden.json"); }

// The layer each golden case was made with, written with Strata's options.
const std::map<std::string, std::function<Layer()>>& builders() {
  static const std::map<std::string, std::function<Layer()>> b = {
      {"conv3d_valid", [] { return Conv3D(3, 2); }},
      {"conv3d_same_strides_2_1_2", [] { return Conv3D(3, 3, {.strides = {2, 1, 2}, .padding = "same"}); }},
      {"conv3d_same_even_kernel", [] { return Conv3D(2, {2, 3, 4}, {.padding = "same"}); }},
      {"conv3d_dilation_1_2_1_relu", [] { return Conv3D(2, {2, 3, 2}, {.dilation_rate = {1, 2, 1}, .activation = "relu"}); }},
      {"conv3d_groups2_tanh", [] { return Conv3D(4, 2, {.groups = 2, .activation = "tanh"}); }},
      {"conv3d_channels_first", [] { return Conv3D(3, 2, {.padding = "same", .data_format = "channels_first"}); }},
      {"conv3d_no_bias", [] { return Conv3D(2, {1, 2, 2}, {.use_bias = false}); }},
      {"conv3d_transpose_valid_s2", [] { return Conv3DTranspose(2, 2, {.strides = 2}); }},
      {"conv3d_transpose_same_k3_s_2_1_2", [] { return Conv3DTranspose(2, 3, {.strides = {2, 1, 2}, .padding = "same"}); }},
      {"conv3d_transpose_valid_k3_s2_output_padding1",
       [] { return Conv3DTranspose(2, 3, {.strides = 2, .output_padding = 1}); }},
      {"conv3d_transpose_same_k3_s2_output_padding_1_0_1",
       [] { return Conv3DTranspose(2, 3, {.strides = 2, .padding = "same", .output_padding = IntTriple{1, 0, 1}}); }},
      {"conv3d_transpose_channels_first_sigmoid",
       [] {
         return Conv3DTranspose(2, {2, 3, 2}, {.strides = {1, 2, 2}, .padding = "same", .data_format = "channels_first",
                                               .activation = "sigmoid"});
       }},
      {"conv3d_transpose_dilation2", [] { return Conv3DTranspose(2, 2, {.dilation_rate = 2}); }},
      {"conv1d_transpose_valid_k3_s2", [] { return Conv1DTranspose(3, 3, {.strides = 2}); }},
      {"conv1d_transpose_same_k4_s2", [] { return Conv1DTranspose(3, 4, {.strides = 2, .padding = "same"}); }},
      {"conv1d_transpose_same_k3_s2_output_padding1",
       [] { return Conv1DTranspose(2, 3, {.strides = 2, .padding = "same", .output_padding = 1}); }},
      {"conv1d_transpose_valid_k2_s3_no_bias", [] { return Conv1DTranspose(2, 2, {.strides = 3, .use_bias = false}); }},
      {"conv1d_transpose_same_k3_dilation2", [] { return Conv1DTranspose(2, 3, {.padding = "same", .dilation_rate = 2}); }},
      {"conv1d_transpose_channels_first",
       [] { return Conv1DTranspose(2, 3, {.strides = 2, .padding = "same", .data_format = "channels_first"}); }},
      {"max_pool3d_default", [] { return MaxPooling3D(); }},
      {"max_pool3d_3_s2_same", [] { return MaxPooling3D(3, {.strides = 2, .padding = "same"}); }},
      {"max_pool3d_channels_first", [] { return MaxPooling3D(2, {.data_format = "channels_first"}); }},
      {"avg_pool3d_default", [] { return AveragePooling3D(2); }},
      {"avg_pool3d_3_s2_same", [] { return AveragePooling3D(3, {.strides = 2, .padding = "same"}); }},
      {"avg_pool3d_2_3_1_s_1_2_1", [] { return AveragePooling3D({2, 3, 1}, {.strides = IntTriple{1, 2, 1}}); }},
      {"global_max_pool3d", [] { return GlobalMaxPooling3D(); }},
      {"global_avg_pool3d_keepdims", [] { return GlobalAveragePooling3D({.keepdims = true}); }},
      {"global_avg_pool3d_channels_first", [] { return GlobalAveragePooling3D({.data_format = "channels_first"}); }},
      {"zero_padding3d", [] { return ZeroPadding3D({{1, 0}, {0, 2}, {1, 1}}); }},
      {"zero_padding3d_channels_first", [] { return ZeroPadding3D({1, 0, 2}, {.data_format = "channels_first"}); }},
      {"cropping3d", [] { return Cropping3D({{1, 0}, {0, 1}, {1, 1}}); }},
      {"cropping3d_channels_first", [] { return Cropping3D(1, {.data_format = "channels_first"}); }},
      {"upsampling3d_2_1_3", [] { return UpSampling3D({2, 1, 3}); }},
      {"upsampling3d_channels_first", [] { return UpSampling3D(2, {.data_format = "channels_first"}); }},
      {"conv2d_transpose_valid_k3_s_2_3_output_padding_1_2",
       [] { return Conv2DTranspose(2, 3, {.strides = {2, 3}, .output_padding = IntPair{1, 2}}); }},
      {"conv2d_transpose_same_k3_s2_output_padding1_channels_first",
       [] {
         return Conv2DTranspose(3, 3, {.strides = 2, .padding = "same", .output_padding = 1,
                                       .data_format = "channels_first"});
       }},
  };
  return b;
}

const ordered_json& find_case(const std::string& name) {
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == name) return c;
  }
  throw std::runtime_error("no golden case " + name);
}

class Conv3DGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(Conv3DGolden, MatchesKerasOutputsAndGradients) { testing::expect_matches_keras_case(find_case(GetParam())); }

// Every key Keras writes (but the name and dtype policy) has Keras's value. Initializers:
// the class and seed (Keras 3.15 also writes GlorotUniform's input_axes / output_axes,
// null by default, which Strata's initializers do not model).
TEST_P(Conv3DGolden, WrittenInCppHasKerasConfig) {
  const ordered_json& c = find_case(GetParam());
  Layer layer = builders().at(GetParam())();
  EXPECT_EQ(layer.class_name(), c.at("class_name").get<std::string>());
  const ordered_json ours = io::layer_config(layer);
  for (const auto& [key, value] : c.at("config").items()) {
    if (key == "name" || key == "dtype") continue;
    ASSERT_TRUE(ours.contains(key)) << "no '" << key << "' in " << ours.dump();
    if (key.ends_with("_initializer")) {
      EXPECT_EQ(ours.at(key).at("class_name"), value.at("class_name")) << key;
      EXPECT_EQ(ours.at(key).at("config").value("seed", ordered_json()), value.at("config").value("seed", ordered_json()))
          << key;
    } else {
      EXPECT_EQ(ours.at(key), value) << key;
    }
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& c : goldens().at("cases")) names.push_back(c.at("name").get<std::string>());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Keras3, Conv3DGolden, ::testing::ValuesIn(case_names()),
                         [](const auto& info) { return testing::test_name_of(info.param); });

TEST(Conv3DGoldenFile, EveryGoldenCaseHasABuilderAndWasMadeByKeras3) {
  for (const auto& c : goldens().at("cases")) EXPECT_TRUE(builders().count(c.at("name").get<std::string>())) << c.at("name");
  EXPECT_EQ(goldens().at("generator").at("keras").get<std::string>().substr(0, 2), "3.");
}

}  // namespace
}  // namespace strata::conv3d_golden_test
