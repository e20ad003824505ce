// The image augmentation layers in files: a Sequential model of the seven layers of
// Keras's "image classification from scratch" recipe, saved by Keras 3.15
// (tests/data/augmentation/model.keras, tests/reference/make_augmentation_goldens.py),
// loads with every key of every layer, predicts Keras's inference output (the identity,
// then RandomCrop's documented window), and loads back from the .keras and .h5 files
// Strata writes of it. Keras itself cannot write these layers to .h5. Configs round-trip
// with Keras's keys; values Keras refuses are refused naming layer, key and value.
#include <gtest/gtest.h>

#include <string>

#include "../layers/golden_json.h"
#include "core/error.h"
#include "io/layer_config.h"
#include "io/saving.h"
#include "layers/core/input_layer.h"
#include "layers/preprocessing/auto_contrast.h"
#include "layers/preprocessing/equalization.h"
#include "layers/preprocessing/random_brightness.h"
#include "layers/preprocessing/random_color_degeneration.h"
#include "layers/preprocessing/random_color_jitter.h"
#include "layers/preprocessing/random_contrast.h"
#include "layers/preprocessing/random_crop.h"
#include "layers/preprocessing/random_erasing.h"
#include "layers/preprocessing/random_flip.h"
#include "layers/preprocessing/random_gaussian_blur.h"
#include "layers/preprocessing/random_grayscale.h"
#include "layers/preprocessing/random_hue.h"
#include "layers/preprocessing/random_invert.h"
#include "layers/preprocessing/random_posterization.h"
#include "layers/preprocessing/random_rotation.h"
#include "layers/preprocessing/random_saturation.h"
#include "layers/preprocessing/random_sharpness.h"
#include "layers/preprocessing/random_shear.h"
#include "layers/preprocessing/random_translation.h"
#include "layers/preprocessing/random_zoom.h"
#include "layers/preprocessing/solarization.h"
#include "models/model.h"
#include "test_util.h"

using namespace strata;

namespace augmentation_files_test {

using io::json;

namespace {

std::string dir() { return std::string(STRATA_TEST_DATA) + "/augmentation/"; }

const nlohmann::ordered_json& golden() { return strata::testing::golden_file("augmentation/model.json"); }

void expect_predicts_window(Model& model, const std::string& what) {
  const Tensor y = model.predict(strata::testing::golden_tensor(golden().at("input")));
  EXPECT_TRUE(strata::testing::golden_near(y, golden().at("window"), what));
}

Layer from(const std::string& cls, const json& config) {
  return io::layer_from_config(json{{"class_name", cls}, {"config", config}}, {});
}

json round_trip(const Layer& layer) {
  json first = io::layer_config(layer);
  json second = io::layer_config(from(layer.class_name(), first));
  EXPECT_EQ(first, second) << layer.class_name();
  return first;
}

}  // namespace

TEST(AugmentationFiles, KerasModelLoadsWithEveryKeyAndPredictsItsWindow) {
  Model model = models::load_model(dir() + "model.keras");
  const auto& keras_layers = golden().at("layers");
  std::vector<Layer> augmentation;
  for (const Layer& l : model.layers()) {
    if (l.class_name() != "InputLayer") augmentation.push_back(l);
  }
  ASSERT_EQ(augmentation.size(), keras_layers.size());
  for (std::size_t i = 0; i < augmentation.size(); ++i) {
    EXPECT_EQ(augmentation[i].class_name(), keras_layers[i].at("class_name").get<std::string>());
    // Every key Keras wrote, with Keras's value, comes back from Strata's config.
    const json strata_config = io::layer_config(augmentation[i]);
    for (const auto& [key, value] : keras_layers[i].at("config").items()) {
      if (key == "name" || key == "dtype") continue;
      ASSERT_TRUE(strata_config.contains(key)) << augmentation[i].class_name() << " " << key;
      EXPECT_EQ(strata_config.at(key), json::parse(value.dump())) << augmentation[i].class_name() << " " << key;
    }
  }
  expect_predicts_window(model, "Keras's model.keras");
}

TEST(AugmentationFiles, StrataFilesLoadBack) {
  strata::testing::ScratchDir scratch;
  Model model = models::load_model(dir() + "model.keras");
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("again" + ext));
    Model again = models::load_model(scratch.file("again" + ext));
    expect_predicts_window(again, "Strata's " + ext);
    for (std::size_t i = 0; i < model.layers().size(); ++i) {
      EXPECT_EQ(io::layer_config(again.layers()[i]).dump(), io::layer_config(model.layers()[i]).dump()) << ext;
    }
  }
}

// The colour layers Keras 3.15 added (tests/data/augmentation/colors.keras): every key of
// every layer read with Keras's value, the identity in inference, and Strata's .keras and
// .h5 files of the model load back with the same configs.
TEST(AugmentationFiles, KerasColorModelLoadsWithEveryKeyAndRoundTrips) {
  const auto& keras = strata::testing::golden_file("augmentation/colors.json");
  Model model = models::load_model(dir() + "colors.keras");
  std::vector<Layer> layers;
  for (const Layer& l : model.layers()) {
    if (l.class_name() != "InputLayer") layers.push_back(l);
  }
  ASSERT_EQ(layers.size(), keras.at("layers").size());
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto& k = keras.at("layers")[i];
    EXPECT_EQ(layers[i].class_name(), k.at("class_name").get<std::string>());
    const json strata_config = io::layer_config(layers[i]);
    for (const auto& [key, value] : k.at("config").items()) {
      if (key == "name" || key == "dtype") continue;
      ASSERT_TRUE(strata_config.contains(key)) << layers[i].class_name() << " " << key;
      EXPECT_EQ(strata_config.at(key), json::parse(value.dump())) << layers[i].class_name() << " " << key;
    }
  }
  const Tensor input = strata::testing::golden_tensor(keras.at("input"));
  EXPECT_TRUE(strata::testing::golden_near(model.predict(input), keras.at("predict"), "Keras's colors.keras"));
  strata::testing::ScratchDir scratch;
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("colors" + ext));
    Model again = models::load_model(scratch.file("colors" + ext));
    EXPECT_TRUE(strata::testing::golden_near(again.predict(input), keras.at("predict"), "Strata's " + ext));
    for (std::size_t i = 0; i < model.layers().size(); ++i) {
      EXPECT_EQ(io::layer_config(again.layers()[i]).dump(), io::layer_config(model.layers()[i]).dump()) << ext;
    }
  }
}

// Keras 3.15 builds no model of Equalization (its output spec is its input, a cycle), so
// no Keras file holds one: Strata's .keras and .h5 files of one load back, equalizing alike.
TEST(AugmentationFiles, EqualizationModelRoundTrips) {
  auto in = Input({4, 5, 3});
  Model model(in, layers::Equalization({.value_range = {0, 1}, .bins = 16})(in));
  Tensor x({2, 4, 5, 3});
  for (std::int64_t i = 0; i < x.size(); ++i) x.data<float>()[i] = static_cast<float>((i * 37) % 101) / 100.f;
  strata::testing::ScratchDir scratch;
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("equalization" + ext));
    Model again = models::load_model(scratch.file("equalization" + ext));
    EXPECT_EQ(io::layer_config(again.layers().back()).dump(), io::layer_config(model.layers().back()).dump()) << ext;
    const Tensor y = again.predict(x);
    for (std::int64_t i = 0; i < x.size(); ++i) ASSERT_EQ(y.item(i), x.item(i)) << "inference: the identity";
  }
}

TEST(AugmentationConfig, RoundTripsWithKerasKeys) {
  using namespace strata::layers;
  json flip = round_trip(RandomFlip({.mode = "vertical", .seed = 3, .data_format = "channels_first"}));
  EXPECT_EQ(flip["mode"], "vertical");
  EXPECT_EQ(flip["data_format"], "channels_first");
  EXPECT_TRUE(round_trip(RandomFlip())["seed"].is_null());  // drawn, not written
  json rotation = round_trip(RandomRotation(0.2, {.fill_mode = "wrap", .interpolation = "nearest", .fill_value = 1.5}));
  EXPECT_EQ(rotation["factor"], json::parse("[-0.2, 0.2]"));  // Keras keeps the range
  EXPECT_EQ(rotation["fill_mode"], "wrap");
  EXPECT_EQ(rotation["fill_value"], 1.5);
  json zoom = round_trip(RandomZoom(0.3));
  EXPECT_EQ(zoom["height_factor"], 0.3);  // as given, a number
  EXPECT_TRUE(zoom["width_factor"].is_null());
  EXPECT_EQ(round_trip(RandomZoom({-0.2, 0.1}, {.width_factor = 0.4}))["width_factor"], 0.4);
  json translation = round_trip(RandomTranslation(0.1, {-0.2, 0.3}, {.fill_mode = "constant"}));
  EXPECT_EQ(translation["height_factor"], 0.1);
  EXPECT_EQ(translation["width_factor"], json::parse("[-0.2, 0.3]"));
  json contrast = round_trip(RandomContrast(0.2, {.value_range = {0, 1}}));
  EXPECT_EQ(contrast["factor"], json::parse("[0.0, 0.2]"));  // bounds [0, 1]: a number f is [0, f]
  EXPECT_EQ(contrast["value_range"], json::parse("[0.0, 1.0]"));
  EXPECT_EQ(round_trip(RandomBrightness(0.1, {.value_range = {1, -1}}))["value_range"], json::parse("[-1.0, 1.0]"));
  json crop = round_trip(RandomCrop(5, 6, {.seed = 11}));
  EXPECT_EQ(crop["height"], 5);
  EXPECT_EQ(crop["seed"], 11);
  EXPECT_EQ(round_trip(RandomInvert())["factor"], json::parse("[0.0, 1.0]"));  // Keras's default, as a range
  json solarization = round_trip(Solarization({.addition_factor = 0.3, .threshold_factor = {0.6, 0.2}}));
  EXPECT_EQ(solarization["addition_factor"], json::parse("[0.0, 0.3]"));
  EXPECT_EQ(solarization["threshold_factor"], json::parse("[0.2, 0.6]"));
  json grey = round_trip(RandomGrayscale({.factor = 0.25, .seed = 3}));
  EXPECT_EQ(grey["factor"], 0.25);
  EXPECT_FALSE(grey.contains("seed"));  // Keras writes none
  json shear = round_trip(RandomShear({.x_factor = 0.3, .y_factor = {0.4, 0.1}, .fill_mode = "nearest"}));
  EXPECT_EQ(shear["x_factor"], 0.3);  // as given: Keras cannot load the [-0.3, 0.3] it writes
  EXPECT_EQ(shear["y_factor"], json::parse("[0.4, 0.1]"));
  EXPECT_EQ(round_trip(AutoContrast({.value_range = {1, 0}}))["value_range"], json::parse("[0.0, 1.0]"));
  json hue = round_trip(RandomHue(0.4, {.value_range = {1, 0}, .seed = 5}));
  EXPECT_EQ(hue["factor"], json::parse("[0.0, 0.4]"));  // bounds [0, 1]: a number f is [0, f]
  EXPECT_EQ(hue["value_range"], json::parse("[1.0, 0.0]"));  // as given: Keras does not sort it
  EXPECT_EQ(hue["seed"], 5);
  json equalization = round_trip(Equalization({.value_range = {1, 0}, .bins = 32}));
  EXPECT_EQ(equalization["bins"], 32);
  EXPECT_EQ(equalization["value_range"], json::parse("[0.0, 1.0]"));
  json erasing = round_trip(RandomErasing({.fill_value = PerChannel{1, 2, 3}}));
  EXPECT_EQ(erasing["factor"], json::parse("[0.0, 1.0]"));
  EXPECT_EQ(erasing["scale"], json::parse("[0.02, 0.33]"));
  EXPECT_EQ(erasing["fill_value"], json::parse("[1.0, 2.0, 3.0]"));
  EXPECT_TRUE(round_trip(RandomErasing())["fill_value"].is_null());
  json blur = round_trip(RandomGaussianBlur({.kernel_size = IntPair(3, 5), .sigma = 0.5}));
  EXPECT_EQ(blur["kernel_size"], json::parse("[3, 5]"));
  EXPECT_EQ(blur["sigma"], json::parse("[0.0, 0.5]"));
  EXPECT_EQ(blur["factor"], json::parse("[0.0, 1.0]"));
  json sharpness = round_trip(RandomSharpness(0.4, {.value_range = {255, 0}}));
  EXPECT_EQ(sharpness["factor"], json::parse("[0.0, 0.4]"));
  EXPECT_EQ(sharpness["value_range"], json::parse("[0.0, 255.0]"));
  json posterization = round_trip(RandomPosterization(5));
  EXPECT_EQ(posterization["factor"], json::parse("[1, 5]"));  // bounds [1, 8]: a number f is [1, f]
  // Integers: Keras 3.15's randint refuses the floats 1.0 and 5.0 when it loads them.
  EXPECT_TRUE(posterization["factor"][0].is_number_integer() && posterization["factor"][1].is_number_integer());
  json jitter = round_trip(RandomColorJitter({.value_range = {0, 1}, .brightness_factor = 0.2,
                                              .saturation_factor = PerChannel{0.1, 0.5}}));
  EXPECT_EQ(jitter["brightness_factor"], 0.2);  // as given, as Keras
  EXPECT_EQ(jitter["saturation_factor"], json::parse("[0.1, 0.5]"));
  EXPECT_TRUE(jitter["hue_factor"].is_null());
  EXPECT_TRUE(jitter["contrast_factor"].is_null());
  json degeneration = round_trip(RandomColorDegeneration({0.6, -0.2}, {.seed = 2}));
  EXPECT_EQ(degeneration["factor"], json::parse("[-0.2, 0.6]"));
  EXPECT_EQ(degeneration["value_range"], json::parse("[0.0, 255.0]"));
  json saturation = round_trip(RandomSaturation(0.3, {.value_range = {1, 0}}));
  EXPECT_EQ(saturation["factor"], json::parse("[-0.3, 0.3]"));  // bounds [-1, 1]
  EXPECT_EQ(saturation["value_range"], json::parse("[0.0, 1.0]"));  // Keras sorts it
}

// What Keras refuses, Strata refuses, naming the layer, the key and the value.
TEST(AugmentationConfig, RefusesValuesKerasRefusesByKeyAndValue) {
  struct Bad {
    std::string cls;
    json config;
    std::string key, value;
  };
  const std::vector<Bad> bad = {
      {"RandomFlip", {{"mode", "diagonal"}}, "mode", "diagonal"},
      {"RandomRotation", {{"factor", 0.2}, {"fill_mode", "mirror"}}, "fill_mode", "mirror"},
      {"RandomRotation", {{"factor", 0.2}, {"interpolation", "bicubic"}}, "interpolation", "bicubic"},
      {"RandomRotation", {{"factor", 1.5}}, "factor", "1.5"},
      {"RandomZoom", {{"height_factor", -1.0}}, "height_factor", "-1"},
      {"RandomTranslation", {{"height_factor", 0.1}, {"width_factor", json::parse("[0.1, 0.2, 0.3]")}},
       "width_factor", "[0.1, 0.2, 0.3]"},
      {"RandomContrast", {{"factor", -0.5}}, "factor", "-0.5"},
      {"RandomBrightness", {{"factor", 0.1}, {"value_range", json::parse("[0, 1, 2]")}}, "value_range", "[0, 1, 2]"},
      {"RandomCrop", {{"height", 4}, {"width", 5}, {"data_format", "channels_middle"}}, "data_format",
       "channels_middle"},
      {"RandomInvert", {{"factor", 1.5}}, "factor", "1.5"},
      {"RandomShear", {{"x_factor", json::parse("[-0.2, 0.3]")}}, "x_factor", "-0.2"},
      {"Solarization", {{"threshold_factor", -0.2}}, "threshold_factor", "-0.2"},
      {"RandomGrayscale", {{"factor", 2.0}}, "factor", "2"},
      {"AutoContrast", {{"value_range", 255}}, "value_range", "255"},
      {"RandomHue", {{"factor", 1.5}}, "factor", "1.5"},
      {"RandomHue", {{"factor", 0.5}, {"value_range", json::parse("[0, 1, 2]")}}, "value_range", "[0, 1, 2]"},
      {"Equalization", {{"bins", 0}}, "bins", "0"},
      {"RandomErasing", {{"scale", json::parse("[1.5, 2.0]")}}, "scale", "[1.5, 2]"},
      {"RandomErasing", {{"fill_value", json::parse("[1, 2]")}}, "fill_value", "2"},
      {"RandomGaussianBlur", {{"kernel_size", 4}}, "kernel_size", "4"},
      {"RandomGaussianBlur", {{"sigma", 1.5}}, "sigma", "1.5"},
      {"RandomSharpness", {{"factor", -0.5}}, "factor", "-0.5"},
      {"RandomPosterization", {{"factor", 9}}, "factor", "9"},
      {"RandomPosterization", {{"factor", 4.5}}, "factor", "4.5"},
      {"RandomColorJitter", {{"hue_factor", 1.5}}, "hue_factor", "1.5"},
      {"RandomColorJitter", {{"data_format", "channels_first"}}, "data_format", "channels_first"},
      {"RandomColorDegeneration", {{"factor", json::parse("[1.5, 2.0]")}}, "factor", "[1.5, 2]"},
      {"RandomSaturation", {{"factor", -1.5}}, "factor", "-1.5"},
  };
  for (const Bad& b : bad) {
    json config = b.config;
    config["name"] = "augment";
    try {
      from(b.cls, config);
      ADD_FAILURE() << b.cls << " accepted " << config.dump();
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(b.key), std::string::npos) << what;
      EXPECT_NE(what.find(b.value), std::string::npos) << what;
      EXPECT_NE(what.find(b.cls), std::string::npos) << what;
    }
  }
}

}  // namespace augmentation_files_test
