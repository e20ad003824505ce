// ConvLSTM1D, ConvLSTM2D and ConvLSTM3D in files: models saved by Keras 3.15.1
// (tests/data/conv_lstm/, tests/reference/make_conv_lstm_goldens.py) load from .keras and .h5
// and predict what Keras predicted, and load back from the files Strata writes of them;
// configs round-trip with Keras's keys, and values Strata cannot honour are refused naming
// layer, key and value.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "io/layer_config.h"
#include "keras_test_util.h"
#include "layers/core/input_layer.h"
#include "layers/recurrent/conv_lstm.h"
#include "models/model.h"

using namespace strata;

namespace conv_lstm_files_test {

using io::json;

namespace {

std::string dir() { return std::string(STRATA_TEST_DATA) + "/conv_lstm/"; }

class ConvLSTMFile : public ::testing::TestWithParam<std::string> {};

TEST_P(ConvLSTMFile, LoadsAndPredictsAsKeras) {
  strata::testing::expect_keras_files_predict_golden(dir(), GetParam());
}

TEST_P(ConvLSTMFile, StrataFilesLoadBack) {
  strata::testing::expect_resaved_files_predict_golden(dir(), GetParam());
}

// conv_lstm1d_mask_input: a mask input passed with the calls (make_conv_lstm_mask_goldens.py).
INSTANTIATE_TEST_SUITE_P(Keras3, ConvLSTMFile, ::testing::Values("conv_lstm1d", "conv_lstm2d", "conv_lstm3d",
                                                                 "conv_lstm1d_mask_input"));

// A Masking layer's mask through two ConvLSTM2D layers: Keras 3 saves it as NotEqual and Any
// operations passed with the calls, which have no tf.keras form, so Strata writes the model
// back as .keras only (and Keras 3.15.1 cannot load its own .h5 of it).
TEST(ConvLSTMFiles, AMaskingLayersMaskAsKeras) {
  const std::string name = "conv_lstm2d_masking";
  strata::testing::expect_keras_files_predict_golden(dir(), name);
  strata::testing::expect_resaved_files_predict_golden(dir(), name, {".keras", ".h5"}, {".keras"});
  strata::testing::ScratchDir scratch;
  Model model = models::load_model(dir() + name + ".h5");
  EXPECT_THROW(model.save(scratch.file("again.h5")), NotImplementedError);
}

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

TEST(ConvLSTMFiles, KerasWeightNames) {
  Model model = models::load_model(dir() + "conv_lstm2d.keras");
  const auto w = model.weights();
  ASSERT_EQ(w.size(), 6u);
  EXPECT_EQ(w[0].path(), "convlstm_a/conv_lstm_cell/kernel");
  EXPECT_EQ(w[4].path(), "convlstm_b/conv_lstm_cell/recurrent_kernel");
}

TEST(ConvLSTMConfig, RoundTripWithKerasKeys) {
  json c2 = round_trip(layers::ConvLSTM2D(4, {3, 2}, {.strides = {2, 1}, .padding = "same",
                                                      .recurrent_activation = "hard_sigmoid",
                                                      .unit_forget_bias = false, .dropout = 0.25, .seed = 3,
                                                      .return_sequences = true, .go_backwards = true}));
  EXPECT_EQ(c2["filters"], 4);
  EXPECT_EQ(c2["kernel_size"], json::array({3, 2}));
  EXPECT_EQ(c2["strides"], json::array({2, 1}));
  EXPECT_EQ(c2["padding"], "same");
  EXPECT_EQ(c2["data_format"], "channels_last");
  EXPECT_EQ(c2["activation"], "tanh");
  EXPECT_EQ(c2["recurrent_activation"], "hard_sigmoid");
  EXPECT_EQ(c2["unit_forget_bias"], false);
  EXPECT_EQ(c2["dropout"], 0.25);
  EXPECT_EQ(c2["seed"], 3);
  EXPECT_EQ(c2["return_sequences"], true);
  EXPECT_EQ(c2["go_backwards"], true);
  EXPECT_EQ(c2["stateful"], false);
  EXPECT_TRUE(c2["recurrent_regularizer"].is_null());
  json c1 = round_trip(layers::ConvLSTM1D(2, 3, {.data_format = "channels_first", .dilation_rate = 2}));
  EXPECT_EQ(c1["kernel_size"], json::array({3}));
  EXPECT_EQ(c1["dilation_rate"], json::array({2}));
  EXPECT_EQ(c1["data_format"], "channels_first");
  EXPECT_TRUE(c1["seed"].is_null());  // drawn, not written
  EXPECT_EQ(round_trip(layers::ConvLSTM3D(2, {1, 2, 3}))["kernel_size"], json::array({1, 2, 3}));
}

TEST(ConvLSTMConfig, RegularizersAndConstraintsAreHonoured) {
  Layer layer = from("ConvLSTM2D", R"({"name": "c", "filters": 2, "kernel_size": [3, 3],
      "recurrent_regularizer": {"class_name": "L2", "config": {"l2": 0.01}},
      "bias_constraint": {"class_name": "NonNeg", "config": {}}})");
  layer(Input({2, 5, 5, 1}));
  const auto rules = layer.weight_rules();
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].variable.path(), "c/conv_lstm_cell/recurrent_kernel");
  EXPECT_TRUE(rules[0].regularizer.defined());
  EXPECT_EQ(rules[1].variable.path(), "c/conv_lstm_cell/bias");
  EXPECT_TRUE(rules[1].constraint.defined());
}

TEST(ConvLSTMConfig, UnhonouredValuesAreRefusedByLayerKeyAndValue) {
  try {
    from("ConvLSTM2D", R"({"name": "clstm", "filters": 2, "kernel_size": [3, 3], "padding": "causal"})");
    FAIL() << "causal padding was accepted";
  } catch (const ValueError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("clstm"), std::string::npos) << what;
    EXPECT_NE(what.find("causal"), std::string::npos) << what;
  }
  EXPECT_THROW(from("ConvLSTM1D", R"({"filters": 2, "kernel_size": [3], "time_major": true})"), NotImplementedError);
  EXPECT_THROW(from("ConvLSTM1D", R"({"filters": 2, "kernel_size": [3], "dropout": 1.5})"), ValueError);
  EXPECT_THROW(from("ConvLSTM3D", R"({"filters": 0, "kernel_size": [1, 1, 1]})"), ValueError);
}

}  // namespace conv_lstm_files_test
