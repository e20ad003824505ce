// AugMix, RandAugment and ContrastLimitedAdaptiveHistogramEqualization in files: a
// Sequential model of them saved by Keras 3.15 (tests/data/augmentation/mix_model.keras,
// tests/reference/make_augmentation_mix_goldens.py) loads with every key of every layer,
// predicts Keras's inference output (AugMix and RandAugment the identity, then CLAHE), and
// loads back from the .keras and .h5 files Strata writes of it. Configs round-trip with
// Keras's keys; values Keras refuses (or Strata cannot honour) are refused naming layer,
// key and value.
#include <gtest/gtest.h>

#include <string>

#include "../layers/golden_json.h"
#include "core/error.h"
#include "io/layer_config.h"
#include "io/saving.h"
#include "layers/preprocessing/aug_mix.h"
#include "layers/preprocessing/clahe.h"
#include "layers/preprocessing/rand_augment.h"
#include "models/model.h"
#include "test_util.h"

using namespace strata;
using io::json;

namespace augmentation_mix_files_test {

namespace {

std::string mix_dir() { return std::string(STRATA_TEST_DATA) + "/augmentation/"; }

const nlohmann::ordered_json& mix_golden() { return strata::testing::golden_file("augmentation/mix_model.json"); }

void expect_predicts_keras_mix(Model& model, const std::string& what) {
  const Tensor y = model.predict(strata::testing::golden_tensor(mix_golden().at("input")));
  EXPECT_TRUE(strata::testing::golden_near(y, mix_golden().at("predict"), what));
}

Layer mix_from(const std::string& cls, const json& config) {
  return io::layer_from_config(json{{"class_name", cls}, {"config", config}}, {});
}

json mix_round_trip(const Layer& layer) {
  json first = io::layer_config(layer);
  json second = io::layer_config(mix_from(layer.class_name(), first));
  EXPECT_EQ(first, second) << layer.class_name();
  return first;
}

}  // namespace

TEST(AugmentationMixFiles, KerasModelLoadsWithEveryKeyAndPredictsKeras) {
  Model model = models::load_model(mix_dir() + "mix_model.keras");
  const auto& keras_layers = mix_golden().at("layers");
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
  expect_predicts_keras_mix(model, "Keras's mix_model.keras");
}

TEST(AugmentationMixFiles, StrataFilesLoadBack) {
  strata::testing::ScratchDir scratch;
  Model model = models::load_model(mix_dir() + "mix_model.keras");
  for (const std::string ext : {".keras", ".h5"}) {
    model.save(scratch.file("again" + ext));
    Model again = models::load_model(scratch.file("again" + ext));
    expect_predicts_keras_mix(again, "Strata's " + ext);
    for (std::size_t i = 0; i < model.layers().size(); ++i) {
      EXPECT_EQ(io::layer_config(again.layers()[i]).dump(), io::layer_config(model.layers()[i]).dump()) << ext;
    }
  }
}

TEST(AugmentationMixConfig, RoundTripsWithKerasKeys) {
  using namespace strata::layers;
  json aug_mix = mix_round_trip(AugMix({.value_range = {0, 1}, .num_chains = 2, .chain_depth = 4, .factor = 0.6,
                                        .alpha = 0.5, .all_ops = false, .interpolation = "nearest", .seed = 3,
                                        .data_format = "channels_first"}));
  EXPECT_EQ(aug_mix["value_range"], json::parse("[0.0, 1.0]"));
  EXPECT_EQ(aug_mix["num_chains"], 2);
  EXPECT_EQ(aug_mix["chain_depth"], 4);
  EXPECT_EQ(aug_mix["factor"], json::parse("[0.0, 0.6]"));  // Keras keeps the range
  EXPECT_EQ(aug_mix["alpha"], 0.5);
  EXPECT_EQ(aug_mix["all_ops"], false);
  EXPECT_EQ(aug_mix["interpolation"], "nearest");
  EXPECT_EQ(aug_mix["seed"], 3);
  EXPECT_EQ(aug_mix["data_format"], "channels_first");
  EXPECT_TRUE(mix_round_trip(AugMix())["seed"].is_null());  // drawn, not written
  json rand_augment = mix_round_trip(RandAugment({.num_ops = 4, .factor = {0.7, 0.2}, .seed = 5}));
  EXPECT_EQ(rand_augment["num_ops"], 4);
  EXPECT_EQ(rand_augment["factor"], json::parse("[0.2, 0.7]"));
  EXPECT_EQ(rand_augment["value_range"], json::parse("[0.0, 255.0]"));
  EXPECT_EQ(rand_augment["interpolation"], "bilinear");
  json clahe = mix_round_trip(ContrastLimitedAdaptiveHistogramEqualization(
      {.value_range = {-1, 1}, .clip_limit = 2.5, .tile_grid_size = {4, 2}, .data_format = "channels_first"}));
  EXPECT_EQ(clahe["value_range"], json::parse("[-1.0, 1.0]"));
  EXPECT_EQ(clahe["clip_limit"], 2.5);
  EXPECT_EQ(clahe["tile_grid_size"], json::parse("[4, 2]"));
  EXPECT_EQ(clahe["data_format"], "channels_first");
}

// What Keras refuses (or Strata cannot honour), Strata refuses, naming the layer, the key
// and the value.
TEST(AugmentationMixConfig, RefusesValuesByKeyAndValue) {
  struct Bad {
    std::string cls;
    json config;
    std::string key, value;
  };
  const std::vector<Bad> bad = {
      {"AugMix", {{"factor", 1.5}}, "factor", "1.5"},
      {"AugMix", {{"alpha", 0.0}}, "alpha", "0"},
      {"AugMix", {{"num_chains", 0}}, "num_chains", "0"},
      {"AugMix", {{"chain_depth", -1}}, "chain_depth", "-1"},
      {"AugMix", {{"interpolation", "bicubic"}}, "interpolation", "bicubic"},
      {"AugMix", {{"value_range", json::parse("[255, 0]")}}, "value_range", "255"},
      {"AugMix", {{"data_format", "channels_middle"}}, "data_format", "channels_middle"},
      {"AugMix", {{"fill_mode", "constant"}}, "fill_mode", "fill_mode"},
      {"RandAugment", {{"factor", -0.5}}, "factor", "-0.5"},
      {"RandAugment", {{"num_ops", -1}}, "num_ops", "-1"},
      {"RandAugment", {{"interpolation", "bicubic"}}, "interpolation", "bicubic"},
      {"RandAugment", {{"magnitude", 0.5}}, "magnitude", "magnitude"},
      {"ContrastLimitedAdaptiveHistogramEqualization", {{"tile_grid_size", json::parse("[0, 8]")}},
       "tile_grid_size", "0"},
      {"ContrastLimitedAdaptiveHistogramEqualization", {{"value_range", json::parse("[1, 1]")}}, "value_range",
       "1"},
      {"ContrastLimitedAdaptiveHistogramEqualization", {{"data_format", "channels_middle"}}, "data_format",
       "channels_middle"},
      {"ContrastLimitedAdaptiveHistogramEqualization", {{"seed", 3}}, "seed", "seed"},
  };
  for (const Bad& b : bad) {
    json config = b.config;
    config["name"] = "augment";
    try {
      mix_from(b.cls, config);
      ADD_FAILURE() << b.cls << " accepted " << config.dump();
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(b.key), std::string::npos) << what;
      EXPECT_NE(what.find(b.value), std::string::npos) << what;
      EXPECT_NE(what.find(b.cls), std::string::npos) << what;
    }
  }
}

}  // namespace augmentation_mix_files_test
