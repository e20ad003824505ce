// Layers that describe their own config (layers/keras_class.h): every field written once
// with its value, absent keys read as the options struct's defaults, Keras 2 key names,
// and bad values refused with the layer and key named.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "io/layer_config.h"
#include "layers/activations/elu.h"
#include "layers/activations/leaky_relu.h"
#include "layers/activations/prelu.h"
#include "layers/activations/relu.h"
#include "layers/activations/softmax.h"
#include "layers/convolutional/conv.h"
#include "layers/convolutional/conv_transpose.h"
#include "layers/core/dense.h"
#include "layers/core/identity.h"
#include "layers/core/input_layer.h"
#include "layers/core/layer_scale.h"
#include "layers/keras_class.h"
#include "layers/merging/dot.h"
#include "layers/normalization/batch_normalization.h"
#include "layers/normalization/layer_normalization.h"
#include "layers/pooling/pooling.h"
#include "layers/preprocessing/center_crop.h"
#include "layers/preprocessing/normalization.h"
#include "layers/preprocessing/rescaling.h"
#include "layers/preprocessing/resizing.h"
#include "layers/recurrent/gru.h"
#include "layers/recurrent/lstm.h"
#include "layers/recurrent/rnn.h"
#include "layers/recurrent/simple_rnn.h"
#include "layers/regularization/dropout.h"
#include "layers/reshaping/spatial_padding.h"
#include "layers/reshaping/upsampling.h"

using namespace strata;

namespace keras_class_config_test {

using io::json;

namespace {

Layer from(const std::string& cls, const std::string& config, int keras_major = 3) {
  return io::layer_from_config(json{{"class_name", cls}, {"config", json::parse(config)}},
                               {.keras_major = keras_major});
}

// config -> layer -> config -> layer -> config: the two configs are equal.
json round_trip(const Layer& layer) {
  json first = io::layer_config(layer);
  json second = io::layer_config(from(layer.class_name(), first.dump()));
  EXPECT_EQ(first, second) << layer.class_name();
  return first;
}

}  // namespace

TEST(KerasClassConfig, DenseWritesEveryKeyOnce) {
  json c = round_trip(layers::Dense(3, {.activation = "relu", .use_bias = false, .name = "d"}));
  EXPECT_EQ(c["units"], 3);
  EXPECT_EQ(c["activation"], "relu");
  EXPECT_EQ(c["use_bias"], false);
  EXPECT_EQ(c["kernel_initializer"]["class_name"], "GlorotUniform");
  EXPECT_TRUE(c["kernel_regularizer"].is_null());
  EXPECT_EQ(c["name"], "d");
}

TEST(KerasClassConfig, AbsentKeysTakeTheOptionsDefaults) {
  auto d = from("Dense", R"({"name": "x", "units": 2})");
  json c = io::layer_config(d);
  EXPECT_EQ(c["activation"], "linear");
  EXPECT_EQ(c["use_bias"], true);
  EXPECT_EQ(c["bias_initializer"]["class_name"], "Zeros");
  auto relu = from("ReLU", R"({"name": "r"})");
  EXPECT_TRUE(io::layer_config(relu)["max_value"].is_null());
  EXPECT_EQ(io::layer_config(from("LeakyReLU", "{}"))["negative_slope"], 0.3);
}

TEST(KerasClassConfig, NewClassesRoundTrip) {
  round_trip(layers::ReLU({.max_value = 6.0, .negative_slope = 0.1, .threshold = 0.5}));
  round_trip(layers::LeakyReLU({.negative_slope = 0.01}));
  round_trip(layers::PReLU({.shared_axes = std::vector<std::int64_t>{1, 2}}));
  round_trip(layers::ELU({.alpha = 0.5}));
  round_trip(layers::Softmax({.axis = 1}));
  round_trip(layers::Identity());
  json r = round_trip(layers::Rescaling(1.0 / 255, {.offset = 0.5}));
  EXPECT_DOUBLE_EQ(r["scale"].get<double>(), 1.0 / 255);
  json n = round_trip(layers::Normalization({.mean = std::vector<double>{1, 2}, .variance = std::vector<double>{3, 4}}));
  EXPECT_EQ(n["axis"], json::array({-1}));
  EXPECT_EQ(n["mean"], json::array({1.0, 2.0}));
}

TEST(KerasClassConfig, PreprocessingAndApplicationClassesRoundTrip) {
  json r = round_trip(layers::Resizing(3, 4, {.interpolation = "nearest", .crop_to_aspect_ratio = true}));
  EXPECT_EQ(r["height"], 3);
  EXPECT_EQ(r["data_format"], "channels_last");
  round_trip(layers::CenterCrop(2, 5));
  json s = round_trip(layers::Rescaling({0.5, 0.25, 2.0}, {.offset = {0.0, -1.0, 1.0}}));
  EXPECT_EQ(s["scale"], json::array({0.5, 0.25, 2.0}));
  json softmax = round_trip(layers::Softmax({.axis = {1, 2}}));
  EXPECT_EQ(softmax["axis"], json::array({1, 2}));
  round_trip(layers::LayerScale(1e-6, 4));
  // A NumPy scale, as Keras 3 saves one.
  json n = io::layer_config(from("Rescaling", R"({"scale": {"class_name": "__numpy__",
      "config": {"value": [1.0, 2.0], "dtype": "float32"}}})"));
  EXPECT_EQ(n["scale"], json::array({1.0, 2.0}));
  EXPECT_EQ(io::layer_config(from("Resizing", R"({"height": 2, "width": 2, "antialias": true})"))["antialias"], true);
  EXPECT_EQ(io::layer_config(from("Resizing", R"({"height": 2, "width": 2, "interpolation": "lanczos3"})"))
                ["interpolation"],
            "lanczos3");
  EXPECT_THROW(from("Resizing", R"({"height": 2, "width": 2, "interpolation": "cubic"})"), ValueError);
}

TEST(KerasClassConfig, ReadsKeras2KeyNames) {
  // tf.keras 2 wrote LeakyReLU's slope as "alpha".
  json c = io::layer_config(from("LeakyReLU", R"({"name": "l", "alpha": 0.2})", 2));
  EXPECT_EQ(c["negative_slope"], 0.2);
  EXPECT_FALSE(c.contains("alpha"));
}

TEST(KerasClassConfig, NormalizationReadsScalarsAndNestedLists) {
  json c = io::layer_config(from("Normalization", R"({"axis": -1, "mean": 0.5, "variance": [[2.0]]})"));
  EXPECT_EQ(c["mean"], json::array({0.5}));
  EXPECT_EQ(c["variance"], json::array({2.0}));
  EXPECT_EQ(io::layer_config(from("Normalization", R"({"axis": []})"))["axis"], json::array());
}

TEST(KerasClassConfig, BadValuesNameTheLayerAndKey) {
  try {
    from("Dense", R"({"name": "head", "units": "ten"})");
    FAIL() << "no exception";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Dense 'head'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'units'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(from("Dense", R"({"name": "head"})"), ValueError);  // units is required
  EXPECT_THROW(from("ReLU", R"({"max_value": "six"})"), ValueError);
  EXPECT_THROW(from("PReLU", R"({"shared_axes": [1, "x"]})"), ValueError);
  EXPECT_THROW(from("Dense", R"({"units": 2, "use_bias": 1})"), ValueError);
  EXPECT_THROW(from("Dense", R"({"units": 2, "activation": "no_such_fn"})"), NotImplementedError);
}

TEST(KerasClassConfig, DescribedClassesAreListedAsSupported) {
  const auto names = io::registered_layer_classes();
  for (const char* cls : {"Dense", "ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax", "Identity",
                          "Rescaling", "Normalization"})
    EXPECT_NE(std::find(names.begin(), names.end(), cls), names.end()) << cls;
}

// One registry of layer classes (layers/keras_class.h): the classes whose JSON io writes
// by hand are in it beside the described ones, a user's class registered through io lands
// there too, and the supported list is that registry's plus the model classes.
namespace {
class CubeImpl : public LayerImpl {
 public:
  explicit CubeImpl(std::string name) : LayerImpl("OneRegistryCube", std::move(name)) {}
  std::vector<Output> call(Graph&, const std::vector<Output>& in) override {
    return {ops::mul(ops::mul(in[0], in[0]), in[0])};
  }
};
class Cube : public Layer {
 public:
  explicit Cube(const nlohmann::ordered_json& config)
      : Layer(std::make_shared<CubeImpl>(config.value("name", std::string()))) {}
};
}  // namespace

TEST(KerasClassConfig, EveryLayerClassIsInOneRegistry) {
  for (const char* cls : {"RNN", "CuDNNLSTM", "CuDNNGRU"}) {
    const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(cls);
    ASSERT_NE(k, nullptr) << cls;
    EXPECT_NE(k->hand_written, nullptr) << cls;
  }
  for (const char* cls : {"Dense", "LSTM", "Conv2D", "TimeDistributed"}) {
    const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(cls);
    ASSERT_NE(k, nullptr) << cls;
    EXPECT_EQ(k->hand_written, nullptr) << cls;
  }

  EXPECT_EQ(layers::find_keras_class("OneRegistryCube"), nullptr);
  io::register_layer<Cube>("OneRegistryCube", "my_package");
  const std::shared_ptr<const layers::KerasClass> cube = layers::find_keras_class("OneRegistryCube");
  ASSERT_NE(cube, nullptr);
  EXPECT_EQ(cube->module, "my_package");
  const io::json entry = {{"class_name", "OneRegistryCube"}, {"config", {{"name", "cube"}}}};
  EXPECT_EQ(io::layer_from_config(entry, {}).name(), "cube");
  // A described class of the same name registered later does not replace the user's.
  layers::KerasClass described;
  described.class_name = "OneRegistryCube";
  layers::register_keras_class(described);
  EXPECT_EQ(layers::find_keras_class("OneRegistryCube")->module, "my_package");

  std::vector<std::string> expected = layers::keras_class_names();
  for (const char* model : {"Functional", "Model", "Sequential"}) expected.push_back(model);
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(io::registered_layer_classes(), expected);
}

// The classes moved from io/layer_configs keep Keras's spellings: 1-D windows as [n],
// tuples as lists, Dot's equal axes and LayerNormalization's one axis as ints, padding as
// nested pairs, regularizer/constraint nulls and fixed keys at Keras's place, drawn seeds
// written null.
TEST(KerasClassConfig, MigratedClassesKeepKerasSpellings) {
  json conv = round_trip(layers::Conv1D(2, 3, {.name = "c"}));
  EXPECT_EQ(conv["kernel_size"], json::array({3}));
  EXPECT_EQ(conv["strides"], json::array({1}));
  EXPECT_EQ(conv["data_format"], "channels_last");
  EXPECT_TRUE(conv["kernel_regularizer"].is_null());
  EXPECT_EQ(round_trip(layers::Conv2DTranspose(2, {3, 1}))["output_padding"], nullptr);
  EXPECT_EQ(round_trip(layers::Dot(1))["axes"], 1);
  EXPECT_EQ(round_trip(layers::Dot({1, 2}))["axes"], json::array({1, 2}));
  EXPECT_EQ(round_trip(layers::LayerNormalization())["axis"], -1);
  EXPECT_EQ(round_trip(layers::ZeroPadding2D({1, 2}))["padding"], json::parse("[[1, 1], [2, 2]]"));
  EXPECT_EQ(round_trip(layers::MaxPooling1D(2))["pool_size"], json::array({2}));
  EXPECT_EQ(round_trip(layers::UpSampling1D(3))["size"], 3);
  json bn = round_trip(layers::BatchNormalization());
  EXPECT_EQ(bn["synchronized"], false);
  EXPECT_EQ(bn["renorm"], false);
  EXPECT_TRUE(bn["renorm_clipping"].is_null());
  EXPECT_EQ(bn["renorm_momentum"], 0.99);
  std::vector<std::string> keys;
  for (auto it = bn.begin(); it != bn.end(); ++it) keys.push_back(it.key());
  EXPECT_EQ(std::vector<std::string>(keys.end() - 4, keys.end()),
            (std::vector<std::string>{"synchronized", "renorm", "renorm_clipping", "renorm_momentum"}));
  EXPECT_TRUE(round_trip(layers::Dropout(0.5))["seed"].is_null());  // drawn, not written
  EXPECT_EQ(round_trip(layers::Dropout(0.5, {.seed = 7}))["seed"], 7);
  json lstm = round_trip(layers::LSTM(2, {.seed = 3}));
  EXPECT_EQ(lstm["seed"], 3);
  EXPECT_EQ(lstm["unit_forget_bias"], true);
  EXPECT_FALSE(lstm.contains("reset_after"));
  EXPECT_TRUE(lstm["activity_regularizer"].is_null());
}

// Nothing silent (issue #38): a key the class does not read, fix or refuse (a misspelt
// bias_initializer, a key from a newer Keras) is refused naming the layer, the key and
// the value; before, it was ignored, and the layer took the default.
TEST(KerasClassConfig, UnknownKeysAreRefusedByName) {
  try {
    from("Dense", R"({"name": "d", "units": 2, "bias_initialiser": "ones"})");
    FAIL() << "no exception";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("Dense 'd': config key 'bias_initialiser' = \"ones\" is not one Strata "
                                         "reads for this class"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(from("Conv2D", R"({"name": "c", "filters": 2, "kernel_size": 3, "future_option": 1})"),
               NotImplementedError);
  // Keys every layer has, and keys older files hold that a class accepts, still load.
  EXPECT_NO_THROW(from("Dense", R"({"name": "d", "units": 2, "trainable": false, "dtype": "float32",
                                    "activity_regularizer": null, "quantization_config": null})"));
  EXPECT_NO_THROW(from("Embedding", R"({"name": "e", "input_dim": 5, "output_dim": 2, "input_length": 7})"));
}

TEST(KerasClassConfig, RefusalsNameTheKeyAndSayWhy) {
  try {
    from("MultiHeadAttention", R"({"name": "mha", "num_heads": 2, "key_dim": 2, "softmax_robust_masking": true})");
    FAIL() << "no exception";
  } catch (const NotImplementedError& e) {
    EXPECT_NE(std::string(e.what()).find("MultiHeadAttention 'mha': 'softmax_robust_masking' = true is not supported "
                                         "(robust masking)"),
              std::string::npos)
        << e.what();
  }
  // A layer constructor's own check is said with the layer's name.
  try {
    from("Conv2D", R"({"name": "c", "filters": 2, "kernel_size": 3, "padding": "full"})");
    FAIL() << "no exception";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("Conv2D 'c': padding 'full' is not one of"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(from("GRU", R"({"name": "g", "units": 2, "time_major": true})"), NotImplementedError);
}

}  // namespace keras_class_config_test
