// Convolution, pooling, normalization, reshaping and merge layers against real Keras 3:
// tests/data/conv_layers_golden.json (written by tests/reference/make_conv_goldens.py)
// holds inputs, weights, outputs and the gradients of sum(output * projection) for the
// inputs and trainable weights. Each case is rebuilt here with the same arguments and
// must match within 1e-5 absolute + 1e-5 relative.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <string>

#include "core/autodiff.h"
#include "core/ops.h"
#include "core/program.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/convolutional/depthwise_conv2d.h"
#include "layers/convolutional/separable_conv2d.h"
#include "layers/core/input_layer.h"
#include "layers/merging/concatenate.h"
#include "layers/merging/dot.h"
#include "layers/merging/merge.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/pooling/global_pooling.h"
#include "layers/pooling/pooling.h"
#include "layers/reshaping/permute.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"

using namespace strata;
using namespace strata::layers;

namespace conv_golden_test {

using nlohmann::json;

namespace {

// The layer each golden case was made with, built with the same arguments.
const std::map<std::string, std::function<Layer()>>& builders() {
  static const std::map<std::string, std::function<Layer()>> b = {
      {"conv2d_valid", [] { return Conv2D(4, 3); }},
      {"conv2d_same_even_kernel", [] { return Conv2D(4, {2, 4}, {.padding = "same"}); }},
      {"conv2d_same_stride2", [] { return Conv2D(4, 3, {.strides = 2, .padding = "same"}); }},
      {"conv2d_valid_strides_2_3", [] { return Conv2D(3, {3, 2}, {.strides = {2, 3}}); }},
      {"conv2d_dilation2_same", [] { return Conv2D(4, 3, {.padding = "same", .dilation_rate = 2}); }},
      {"conv2d_groups3_tanh", [] { return Conv2D(6, 3, {.groups = 3, .activation = "tanh"}); }},
      {"conv2d_channels_first", [] { return Conv2D(4, 3, {.padding = "same", .data_format = "channels_first"}); }},
      {"conv2d_1x1_no_bias", [] { return Conv2D(5, 1, {.use_bias = false}); }},
      {"conv2d_relu_stride2_valid", [] { return Conv2D(5, 3, {.strides = 2, .activation = "relu"}); }},
      {"conv1d_valid", [] { return Conv1D(4, 3); }},
      {"conv1d_same_even_kernel", [] { return Conv1D(4, 4, {.padding = "same"}); }},
      {"conv1d_causal_dilation2", [] { return Conv1D(3, 3, {.padding = "causal", .dilation_rate = 2}); }},
      {"conv1d_same_stride2", [] { return Conv1D(3, 3, {.strides = 2, .padding = "same"}); }},
      {"conv2d_transpose_valid_s2", [] { return Conv2DTranspose(3, 3, {.strides = 2}); }},
      {"conv2d_transpose_same_k4_s2", [] { return Conv2DTranspose(3, 4, {.strides = 2, .padding = "same"}); }},
      {"conv2d_transpose_same_k3_s1", [] { return Conv2DTranspose(3, 3, {.padding = "same"}); }},
      {"conv2d_transpose_valid_k2_s3", [] { return Conv2DTranspose(2, 2, {.strides = 3}); }},
      {"depthwise_same_dm2", [] { return DepthwiseConv2D(3, {.padding = "same", .depth_multiplier = 2}); }},
      {"depthwise_valid_stride2", [] { return DepthwiseConv2D({3, 2}, {.strides = 2}); }},
      {"separable_same_dm2", [] { return SeparableConv2D(4, 3, {.padding = "same", .depth_multiplier = 2}); }},
      {"max_pool2d_default", [] { return MaxPooling2D(); }},
      {"max_pool2d_3_s2_same", [] { return MaxPooling2D(3, {.strides = 2, .padding = "same"}); }},
      {"max_pool2d_2x3_valid", [] { return MaxPooling2D({2, 3}); }},
      {"max_pool2d_channels_first", [] { return MaxPooling2D(2, {.data_format = "channels_first"}); }},
      {"avg_pool2d_default", [] { return AveragePooling2D(2); }},
      {"avg_pool2d_3_s2_same", [] { return AveragePooling2D(3, {.strides = 2, .padding = "same"}); }},
      {"max_pool1d_3_s2_same", [] { return MaxPooling1D(3, {.strides = 2, .padding = "same"}); }},
      {"avg_pool1d_3_s2_same", [] { return AveragePooling1D(3, {.strides = 2, .padding = "same"}); }},
      {"global_max_pool2d", [] { return GlobalMaxPooling2D(); }},
      {"global_avg_pool2d_keepdims", [] { return GlobalAveragePooling2D({.keepdims = true}); }},
      {"global_max_pool1d", [] { return GlobalMaxPooling1D(); }},
      {"global_avg_pool1d", [] { return GlobalAveragePooling1D(); }},
      {"batch_norm_inference", [] { return BatchNormalization(); }},
      {"batch_norm_training", [] { return BatchNormalization(); }},
      {"batch_norm_axis1_training", [] { return BatchNormalization({.axis = 1}); }},
      {"layer_norm_default", [] { return LayerNormalization(); }},
      {"layer_norm_axes_1_2", [] { return LayerNormalization({.axis = {1, 2}}); }},
      {"zero_padding2d", [] { return ZeroPadding2D({{1, 2}, {0, 3}}); }},
      {"zero_padding1d", [] { return ZeroPadding1D({1, 2}); }},
      {"cropping2d", [] { return Cropping2D({{1, 0}, {2, 1}}); }},
      {"cropping1d", [] { return Cropping1D({1, 2}); }},
      {"upsampling2d_2x3", [] { return UpSampling2D({2, 3}); }},
      {"upsampling1d", [] { return UpSampling1D(2); }},
      {"permute_2_1_3", [] { return Permute({2, 1, 3}); }},
      {"add3", [] { return Add(); }},
      {"subtract", [] { return Subtract(); }},
      {"multiply", [] { return Multiply(); }},
      {"average", [] { return Average(); }},
      {"maximum", [] { return Maximum(); }},
      {"minimum", [] { return Minimum(); }},
      {"concatenate_last", [] { return Concatenate(); }},
      {"concatenate_axis1", [] { return Concatenate(1); }},
      {"dot_2d", [] { return Dot(1); }},
      {"dot_2d_normalize", [] { return Dot(1, {.normalize = true}); }},
      {"dot_3d_axes_2_2", [] { return Dot({2, 2}); }},
      {"dot_3d_axes_1_1", [] { return Dot({1, 1}); }},
  };
  return b;
}

const json& goldens() {
  static const json data = [] {
    std::ifstream f(std::string(STRATA_TEST_DATA) + "/conv_layers_golden.json");
    if (!f) throw std::runtime_error("cannot open conv_layers_golden.json");
    return json::parse(f);
  }();
  return data;
}

Tensor to_tensor(const json& j) {
  std::vector<std::int64_t> shape = j.at("shape").get<std::vector<std::int64_t>>();
  return Tensor::from_vector<float>(Shape(shape), j.at("values").get<std::vector<float>>());
}

::testing::AssertionResult near(const Tensor& actual, const json& expected_json, const std::string& what) {
  Tensor expected = to_tensor(expected_json);
  if (actual.shape() != expected.shape()) {
    return ::testing::AssertionFailure() << what << ": shape " << actual.shape().to_string() << ", Keras "
                                         << expected.shape().to_string();
  }
  for (std::int64_t i = 0; i < actual.size(); ++i) {
    float a = actual.item(i), e = expected.item(i);
    if (!(std::fabs(a - e) <= 1e-5f + 1e-5f * std::fabs(e))) {
      return ::testing::AssertionFailure() << what << ": element " << i << " is " << a << ", Keras " << e;
    }
  }
  return ::testing::AssertionSuccess();
}

class ConvGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvGolden, MatchesKeras) {
  const json* found = nullptr;
  for (const auto& c : goldens().at("cases")) {
    if (c.at("name") == GetParam()) found = &c;
  }
  ASSERT_NE(found, nullptr) << "no golden case " << GetParam();
  const json& c = *found;
  Layer layer = builders().at(GetParam())();
  EXPECT_EQ(layer.class_name(), c.at("class_name").get<std::string>());

  std::vector<Tensor> xs;
  std::vector<KerasTensor> symbolic;
  for (const auto& in : c.at("inputs")) {
    xs.push_back(to_tensor(in));
    symbolic.push_back(Input(xs.back().shape().without_batch()));
  }
  layer(symbolic);  // builds the layer, checks shapes at definition
  std::vector<Tensor> weights;
  for (const auto& w : c.at("weights")) weights.push_back(to_tensor(w));
  layer.set_weights(weights);

  Graph g;
  std::vector<Output> feeds;
  for (const auto& x : xs) feeds.push_back(g.placeholder({x.shape().with_dim(0, kUnknownDim), DType::float32}));
  Output y = layer.impl().call(g, feeds)[0];
  Output proj = g.placeholder({to_tensor(c.at("projection")).shape(), DType::float32}, "projection");
  Output loss = ops::reduce_sum(ops::mul(y, proj));
  std::vector<Output> wrt = feeds;
  for (const auto& v : layer.trainable_weights()) wrt.push_back(g.variable(v));
  std::vector<Output> grads = gradients(loss, wrt);
  std::vector<Output> fetches{y};
  fetches.insert(fetches.end(), grads.begin(), grads.end());
  const bool training = c.at("training").get<bool>();
  std::vector<Output> feeds_all = feeds;
  feeds_all.push_back(proj);
  Program program(g, feeds_all, fetches, g.updates(training));
  std::vector<Tensor> run_feeds = xs;
  run_feeds.push_back(to_tensor(c.at("projection")));
  auto out = program.run(run_feeds, {.training = training});

  EXPECT_TRUE(near(out[0], c.at("output"), "output"));
  const auto& gx = c.at("input_grads");
  for (std::size_t i = 0; i < xs.size(); ++i) {
    EXPECT_TRUE(near(out[1 + i], gx[i], "gradient of input " + std::to_string(i)));
  }
  const auto& gw = c.at("weight_grads");
  ASSERT_EQ(gw.size(), layer.trainable_weights().size());
  for (std::size_t i = 0; i < gw.size(); ++i) {
    EXPECT_TRUE(near(out[1 + xs.size() + i], gw[i], "gradient of " + layer.trainable_weights()[i].path()));
  }
  if (c.contains("non_trainable_after")) {
    auto nt = layer.non_trainable_weights();
    const auto& after = c.at("non_trainable_after");
    ASSERT_EQ(after.size(), nt.size());
    for (std::size_t i = 0; i < nt.size(); ++i) EXPECT_TRUE(near(nt[i].value(), after[i], nt[i].path() + " after"));
  }
}

std::vector<std::string> case_names() {
  std::vector<std::string> names;
  for (const auto& [name, _] : builders()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Layers, ConvGolden, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(ConvGoldenFile, EveryGoldenCaseHasABuilder) {
  for (const auto& c : goldens().at("cases")) {
    EXPECT_TRUE(builders().count(c.at("name").get<std::string>())) << c.at("name");
  }
}

}  // namespace

}  // namespace conv_golden_test
