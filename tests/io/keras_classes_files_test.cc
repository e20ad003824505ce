// The layer classes of issue #38 point 2 in files: models saved by Keras 3.15.1
// (tests/data/keras_classes/, tests/reference/make_keras_classes_goldens.py) load from .keras
// and .h5 and predict what Keras predicted, and load back from the files Strata writes of
// them; ActivityRegularization's penalty is in the loss Keras evaluated; configs round-trip
// with Keras's keys, and keys Strata cannot honour are refused by name and value.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "core/error.h"
#include "io/layer_config.h"
#include "io/npy.h"
#include "keras_test_util.h"
#include "layers/convolutional/depthwise_conv1d.h"
#include "layers/convolutional/separable_conv1d.h"
#include "layers/core/input_layer.h"
#include "layers/normalization/rms_normalization.h"
#include "layers/pooling/adaptive_pooling.h"
#include "layers/regularization/activity_regularization.h"
#include "layers/regularization/alpha_dropout.h"
#include "layers/regularization/gaussian_dropout.h"
#include "layers/regularization/gaussian_noise.h"
#include "layers/regularization/spatial_dropout.h"
#include "models/model.h"

using namespace strata;

namespace keras_classes_files_test {

using io::json;

namespace {

std::string dir() { return std::string(STRATA_TEST_DATA) + "/keras_classes/"; }

class KerasClassesFile : public ::testing::TestWithParam<std::string> {};

TEST_P(KerasClassesFile, LoadsAndPredictsAsKeras) {
  strata::testing::expect_keras_files_predict_golden(dir(), GetParam());
}

TEST_P(KerasClassesFile, StrataFilesLoadBack) {
  strata::testing::expect_resaved_files_predict_golden(dir(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Keras3, KerasClassesFile,
                         ::testing::Values("regularization", "rms_normalization", "adaptive_pooling", "conv1d"));

Layer from(const std::string& cls, const std::string& config) {
  return io::layer_from_config(json{{"class_name", cls}, {"config", json::parse(config)}}, {});
}

// config -> layer -> config: the configs are equal.
json round_trip(const Layer& layer) {
  json first = io::layer_config(layer);
  json second = io::layer_config(from(layer.class_name(), first.dump()));
  EXPECT_EQ(first, second) << layer.class_name();
  return first;
}

}  // namespace

TEST(KerasClassesFiles, ActivityPenaltyIsInTheLossKerasEvaluated) {
  std::ifstream file(std::string(STRATA_TEST_DATA) + "/keras_classes_golden.json");
  const json saved = json::parse(file).at("saved_models").at(0);
  ASSERT_EQ(saved.at("name"), "regularization");
  Model model = models::load_model(dir() + "regularization.keras");
  model.compile({.loss = "mse"});
  const auto scores = model.evaluate(io::load_npy(dir() + "regularization.input0.npy"),
                                     io::load_npy(dir() + "regularization.target0.npy"), {.verbose = 0});
  const double keras = saved.at("evaluate_mse_loss").get<double>();
  EXPECT_NEAR(scores.at("loss"), keras, 1e-5 * keras);
}

TEST(KerasClassesConfig, RoundTripWithKerasKeys) {
  json noise = round_trip(layers::GaussianNoise(0.2, {.seed = 4}));
  EXPECT_EQ(noise["stddev"], 0.2);
  EXPECT_EQ(noise["seed"], 4);
  EXPECT_TRUE(round_trip(layers::GaussianDropout(0.3))["seed"].is_null());  // drawn, not written
  json alpha = round_trip(layers::AlphaDropout(0.1, {.noise_shape = Shape{kUnknownDim, 1, 4}}));
  EXPECT_EQ(alpha["noise_shape"], json::parse("[null, 1, 4]"));
  EXPECT_EQ(round_trip(layers::SpatialDropout3D(0.5, {.data_format = "channels_first"}))["data_format"],
            "channels_first");
  json activity = round_trip(layers::ActivityRegularization({.l1 = 0.01, .l2 = 0.5}));
  EXPECT_EQ(activity["l2"], 0.5);
  json rms = round_trip(layers::RMSNormalization({.axis = {1, 2}, .epsilon = 1e-3}));
  EXPECT_EQ(rms["axis"], json::array({1, 2}));
  EXPECT_EQ(round_trip(layers::RMSNormalization())["axis"], -1);
  EXPECT_EQ(round_trip(layers::AdaptiveMaxPooling1D(3))["output_size"], json::array({3}));
  EXPECT_EQ(round_trip(layers::AdaptiveAveragePooling3D({2, 3, 4}))["output_size"], json::array({2, 3, 4}));
  json depthwise = round_trip(layers::DepthwiseConv1D(3, {.strides = 2, .depth_multiplier = 2}));
  EXPECT_EQ(depthwise["kernel_size"], json::array({3}));
  EXPECT_EQ(depthwise["strides"], json::array({2}));
  EXPECT_TRUE(depthwise["depthwise_regularizer"].is_null());
  EXPECT_EQ(round_trip(layers::SeparableConv1D(4, 3, {.dilation_rate = 2}))["dilation_rate"], json::array({2}));
}

TEST(KerasClassesConfig, UnhonouredKeysAreRefusedByLayerKeyAndValue) {
  // Keras 2 wrote its base Conv2D's kernel_regularizer on a separable convolution, which has
  // no such kernel: set, it is refused, naming the layer, the key and the value.
  try {
    from("SeparableConv2D", R"({"name": "sep", "filters": 2, "kernel_size": 3,
                                "kernel_regularizer": {"class_name": "L2", "config": {"l2": 0.01}}})");
    FAIL() << "a regularizer was accepted";
  } catch (const NotImplementedError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("SeparableConv2D 'sep'"), std::string::npos) << what;
    EXPECT_NE(what.find("'kernel_regularizer' = {\"class_name\":\"L2\""), std::string::npos) << what;
  }
  EXPECT_THROW(from("SpatialDropout3D", R"({"rate": 0.5, "noise_shape": [null, 1, 1, 1, 3]})"), NotImplementedError);
  EXPECT_THROW(from("GaussianNoise", R"({"name": "n", "stddev": 2.0})"), ValueError);  // Keras's [0, 1]
  EXPECT_THROW(from("AdaptiveAveragePooling2D", R"({"output_size": [2, 0]})"), ValueError);
  EXPECT_THROW(from("RMSNormalization", R"({"axis": "last"})"), ValueError);
}

TEST(KerasClassesShapes, ErrorsAtDefinition) {
  EXPECT_THROW(layers::AdaptiveMaxPooling2D(2)(Input({kUnknownDim, 4, 3})), ShapeError);  // sizes must be known
  EXPECT_THROW(layers::AdaptiveAveragePooling1D(2)(Input({4, 4, 3})), ShapeError);        // rank
  EXPECT_THROW(layers::RMSNormalization({.axis = {1}})(Input({3, 4})), ShapeError);        // scale (3,) vs (.., 4)
  EXPECT_THROW(layers::RMSNormalization({.axis = {3}})(Input({3, 4})), ValueError);
  EXPECT_THROW(layers::DepthwiseConv1D(3)(Input({4, 4, 3})), ShapeError);
  EXPECT_THROW(layers::SeparableConv1D(2, 5)(Input({3, 2})), ShapeError);  // window longer than the input
}

}  // namespace keras_classes_files_test
