// The batch-mixing and projective image augmentation layers (MixUp, ...) in files: a
// Sequential model of them saved by Keras 3.15 (tests/data/augmentation/more_model.keras,
// tests/reference/make_augmentation_more_goldens.py) loads with every key of every layer,
// predicts Keras's inference output (the identity), and loads back from the .keras and .h5
// files Strata writes of it. Configs round-trip with Keras's keys; values Keras refuses
// (or Strata cannot honour) are refused naming layer, key and value.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "../layers/golden_json.h"
#include "core/error.h"
#include "io/layer_config.h"
#include "io/model_config.h"
#include "io/saving.h"
#include "layers/preprocessing/cut_mix.h"
#include "layers/preprocessing/max_num_bounding_boxes.h"
#include "layers/preprocessing/mix_up.h"
#include "layers/preprocessing/pipeline.h"
#include "layers/core/dense.h"
#include "layers/preprocessing/rescaling.h"
#include "layers/preprocessing/random_flip.h"
#include "layers/preprocessing/random_elastic_transform.h"
#include "layers/preprocessing/random_perspective.h"
#include "models/model.h"
#include "test_util.h"

using namespace strata;

namespace augmentation_more_files_test {

using io::json;

namespace {

std::string dir() { return std::string(STRATA_TEST_DATA) + "/augmentation/"; }

const nlohmann::ordered_json& golden() { return strata::testing::golden_file("augmentation/more_model.json"); }

void expect_predicts_keras(Model& model, const std::string& what) {
  const Tensor y = model.predict(strata::testing::golden_tensor(golden().at("input")));
  EXPECT_TRUE(strata::testing::golden_near(y, golden().at("predict"), what));
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

TEST(AugmentationMoreFiles, KerasModelLoadsWithEveryKeyAndPredictsKeras) {
  Model model = models::load_model(dir() + "more_model.keras");
  const auto& keras_layers = golden().at("layers");
  std::vector<Layer> augmentation;
  for (const Layer& l : model.layers()) {
    if (l.class_name() != "InputLayer") augmentation.push_back(l);
  }
  ASSERT_EQ(augmentation.size(), keras_layers.size());
  for (std::size_t i = 0; i < augmentation.size(); ++i) {
    EXPECT_EQ(augmentation[i].class_name(), keras_layers[i].at("class_name").get<std::string>());
    const json strata_config = io::layer_config(augmentation[i]);
    for (const auto& [key, value] : keras_layers[i].at("config").items()) {
      if (key == "name" || key == "dtype") continue;
      ASSERT_TRUE(strata_config.contains(key)) << augmentation[i].class_name() << " " << key;
      EXPECT_EQ(strata_config.at(key), json::parse(value.dump())) << augmentation[i].class_name() << " " << key;
    }
  }
  expect_predicts_keras(model, "Keras's more_model.keras");
}

TEST(AugmentationMoreFiles, StrataFilesLoadBack) {
  strata::testing::ScratchDir scratch;
  Model model = models::load_model(dir() + "more_model.keras");
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("again" + ext));
    Model again = models::load_model(scratch.file("again" + ext));
    expect_predicts_keras(again, "Strata's " + ext);
    for (std::size_t i = 0; i < model.layers().size(); ++i) {
      EXPECT_EQ(io::layer_config(again.layers()[i]).dump(), io::layer_config(model.layers()[i]).dump()) << ext;
    }
  }
}

TEST(AugmentationMoreConfig, RoundTripsWithKerasKeys) {
  using namespace strata::layers;
  json mix_up = round_trip(MixUp({.alpha = 0.4, .data_format = "channels_first", .seed = 9}));
  EXPECT_EQ(mix_up["alpha"], 0.4);
  EXPECT_EQ(mix_up["data_format"], "channels_first");
  EXPECT_EQ(mix_up["seed"], 9);
  EXPECT_TRUE(round_trip(MixUp())["seed"].is_null());  // drawn, not written
  json cut_mix = round_trip(CutMix({.factor = 0.3, .seed = 2, .data_format = "channels_first"}));
  EXPECT_EQ(cut_mix["factor"], json::parse("[0.0, 0.3]"));  // Keras keeps the range
  EXPECT_EQ(round_trip(CutMix({.factor = {0.6, 0.2}}))["factor"], json::parse("[0.2, 0.6]"));
  json perspective = round_trip(
      RandomPerspective({.factor = 0.5, .scale = 0.3, .interpolation = "nearest", .fill_value = 2.0, .seed = 4}));
  EXPECT_EQ(perspective["factor"], json::parse("[0.0, 0.5]"));
  EXPECT_EQ(perspective["scale"], 0.3);
  EXPECT_EQ(perspective["interpolation"], "nearest");
  EXPECT_EQ(perspective["fill_value"], 2.0);
  json elastic = round_trip(RandomElasticTransform({.factor = 0.5,
                                                    .scale = {0.4, 0.1},
                                                    .interpolation = "nearest",
                                                    .fill_mode = "constant",
                                                    .fill_value = 3.0,
                                                    .value_range = {-1, 1}}));
  EXPECT_EQ(elastic["factor"], json::parse("[0.0, 0.5]"));
  EXPECT_EQ(elastic["scale"], json::parse("[0.1, 0.4]"));
  EXPECT_EQ(elastic["fill_mode"], "constant");
  EXPECT_EQ(elastic["value_range"], json::parse("[-1.0, 1.0]"));
  json boxes = round_trip(MaxNumBoundingBoxes(5, {.fill_value = -2}));
  EXPECT_EQ(boxes["max_number"], 5);
  EXPECT_FALSE(boxes.contains("fill_value"));  // Keras does not write it
}

// What Keras refuses (or Strata cannot honour), Strata refuses, naming the layer, the key
// and the value.
TEST(AugmentationMoreConfig, RefusesValuesByKeyAndValue) {
  struct Bad {
    std::string cls;
    json config;
    std::string key, value;
  };
  const std::vector<Bad> bad = {
      {"MixUp", {{"alpha", 0.0}}, "alpha", "0"},
      {"MixUp", {{"alpha", 0.2}, {"data_format", "channels_middle"}}, "data_format", "channels_middle"},
      {"MixUp", {{"alpha", 0.2}, {"labels", true}}, "labels", "labels"},
      {"CutMix", {{"factor", 1.5}}, "factor", "1.5"},
      {"CutMix", {{"factor", json::parse("[0.1, 0.2, 0.3]")}}, "factor", "[0.1, 0.2, 0.3]"},
      {"CutMix", {{"factor", 0.5}, {"data_format", "channels_middle"}}, "data_format", "channels_middle"},
      {"RandomPerspective", {{"factor", -0.5}}, "factor", "-0.5"},
      {"RandomPerspective", {{"scale", 1.5}}, "scale", "1.5"},
      {"RandomPerspective", {{"interpolation", "bicubic"}}, "interpolation", "bicubic"},
      {"RandomPerspective", {{"fill_mode", "reflect"}}, "fill_mode", "fill_mode"},
      {"RandomElasticTransform", {{"factor", 1.5}}, "factor", "1.5"},
      {"RandomElasticTransform", {{"scale", -0.5}}, "scale", "-0.5"},
      {"RandomElasticTransform", {{"fill_mode", "mirror"}}, "fill_mode", "mirror"},
      {"RandomElasticTransform", {{"fill_mode", "edge"}}, "fill_mode", "edge"},
      {"RandomElasticTransform", {{"interpolation", "bicubic"}}, "interpolation", "bicubic"},
      {"RandomElasticTransform", {{"value_range", 255}}, "value_range", "255"},
      {"MaxNumBoundingBoxes", {{"max_number", 3}, {"bounding_box_format", "xyxy"}}, "bounding_box_format", "xyxy"},
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

namespace {

const nlohmann::ordered_json& pipeline_golden() {
  return strata::testing::golden_file("augmentation/pipeline_model.json");
}

Layer pipeline_of(const Model& model) {
  for (const Layer& l : model.layers()) {
    if (l.class_name() == "Pipeline") return l;
  }
  ADD_FAILURE() << "no Pipeline";
  return model.layers().front();
}

}  // namespace

// Keras's model holding a Pipeline (RandomFlip, Rescaling, Dense, Rescaling, RandomRotation)
// loads: the Pipeline's config is Keras's keys (layers, name: no trainable or dtype), its
// Dense's weights come from layers/pipeline/layers/dense/vars, and the model predicts
// Keras's output; Strata's .keras and .h5 of it load back and predict the same.
TEST(PipelineFiles, KerasModelLoadsAndRoundTrips) {
  Model model = models::load_model(dir() + "pipeline_model.keras");
  const json keras_config = json::parse(pipeline_golden().at("pipeline").dump());
  const json strata_config = io::layer_config(pipeline_of(model));
  std::vector<std::string> keys;
  for (const auto& [key, value] : strata_config.items()) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(keys, (std::vector<std::string>{"layers", "name"}));
  EXPECT_EQ(strata_config["name"], "augment");
  ASSERT_EQ(strata_config["layers"].size(), keras_config["layers"].size());
  for (std::size_t i = 0; i < keras_config["layers"].size(); ++i) {
    const json& k = keras_config["layers"][i];
    const json& st = strata_config["layers"][i];
    EXPECT_EQ(st["class_name"], k["class_name"]);
    if (k["class_name"] == "Dense") continue;  // Dense's own config: its own suites
    for (const auto& [key, value] : k["config"].items()) {
      if (key == "dtype") continue;
      ASSERT_TRUE(st["config"].contains(key)) << k["class_name"] << " " << key;
      EXPECT_EQ(st["config"][key], value) << k["class_name"] << " " << key;
    }
  }
  const Tensor x = strata::testing::golden_tensor(pipeline_golden().at("input"));
  EXPECT_TRUE(strata::testing::golden_near(model.predict(x), pipeline_golden().at("predict"), "Keras's file"));
  strata::testing::ScratchDir scratch;
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("again" + ext));
    Model again = models::load_model(scratch.file("again" + ext));
    EXPECT_TRUE(strata::testing::golden_near(again.predict(x), pipeline_golden().at("predict"), "Strata's " + ext));
    EXPECT_EQ(io::layer_config(pipeline_of(again)).dump(), strata_config.dump()) << ext;
  }
}

// Keras's Pipeline.from_config builds its layers with Keras 3's deserializer, which needs
// each entry's module even in the .h5 (tf.keras) dialect, where top-level layers have none.
TEST(PipelineFiles, H5DialectKeepsTheInnerModules) {
  Model model = models::load_model(dir() + "pipeline_model.keras");
  const json config = io::model_to_config(model, io::ConfigDialect::keras2);
  bool seen = false;
  for (const json& layer : config["config"]["layers"]) {
    EXPECT_FALSE(layer.contains("module")) << layer["class_name"];
    if (layer["class_name"] != "Pipeline") continue;
    seen = true;
    EXPECT_FALSE(layer["config"].contains("trainable"));
    EXPECT_FALSE(layer["config"].contains("dtype"));
    for (const json& inner : layer["config"]["layers"]) EXPECT_EQ(inner["module"], "keras.layers") << inner.dump();
  }
  EXPECT_TRUE(seen);
  EXPECT_NO_THROW(io::model_from_config(config, {.keras_major = 2}));  // and Strata reads it back
}

TEST(PipelineConfig, RoundTripsAndRefusesByKey) {
  using namespace strata::layers;
  const Layer p = Pipeline({RandomFlip({.seed = 3}), Rescaling(0.5)}, {.name = "prep"});
  const json config = round_trip(p);
  EXPECT_FALSE(config.contains("trainable"));
  EXPECT_FALSE(config.contains("dtype"));
  EXPECT_EQ(config["layers"][1]["class_name"], "Rescaling");
  EXPECT_EQ(config["layers"][0]["config"]["seed"], 3);
  for (const auto& [bad, key] : std::vector<std::pair<json, std::string>>{
           {{{"layers", json::array()}, {"name", "p"}, {"mask", true}}, "mask"},
           {{{"layers", 3}, {"name", "p"}}, "layers"},
           {{{"name", "p"}}, "layers"},
           {{{"layers", json::array()}, {"name", "p"}, {"dtype", "float16"}}, "dtype"}}) {
    try {
      from("Pipeline", bad);
      ADD_FAILURE() << "accepted " << bad.dump();
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("Pipeline"), std::string::npos) << e.what();
    }
  }
}

}  // namespace augmentation_more_files_test
