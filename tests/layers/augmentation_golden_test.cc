// The image augmentation layers' deterministic parts against Keras 3.15 (TensorFlow
// backend) within 1e-5: keras.ops.image.affine_transform (every fill mode and
// interpolation, a projective row), and each layer's transform_images given fixed
// parameters (what its random draws would be), for the options that change the math
// (fill mode, interpolation, fill_value, data_format, mode, value_range). Goldens:
// tests/reference/make_augmentation_goldens.py -> tests/data/augmentation/transforms.json.
#include <gtest/gtest.h>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/image_ops.h"
#include "core/program.h"
#include "golden_json.h"
#include "io/layer_config.h"
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

using namespace strata;
using namespace strata::layers;
using namespace strata::testing;
using nlohmann::ordered_json;

namespace augmentation_golden_test {

namespace {

const ordered_json& cases() { return golden_file("augmentation/transforms.json"); }

// The output of `build` on the case's images and (in order) parameter tensors.
Tensor run(const std::function<Output(Graph&, Output, const std::vector<Output>&)>& build, const Tensor& images,
           const std::vector<Tensor>& params, bool training = true) {
  Graph g;
  Output x = g.placeholder({images.shape().with_dim(0, kUnknownDim), DType::float32}, "images");
  std::vector<Output> feeds{x}, ps;
  for (const Tensor& p : params) {
    ps.push_back(g.placeholder({p.shape(), DType::float32}));
    feeds.push_back(ps.back());
  }
  Program program(g, feeds, {build(g, x, ps)});
  std::vector<Tensor> values{images};
  values.insert(values.end(), params.begin(), params.end());
  return program.run(values, {.training = training})[0];
}

Tensor param(const ordered_json& c, const std::string& key) { return golden_tensor(c.at("params").at(key)); }

Tensor as_float(const Tensor& t) {
  if (t.dtype() == DType::float32) return t;
  std::vector<float> v;
  for (std::int64_t i = 0; i < t.size(); ++i) v.push_back(static_cast<float>(t.data<std::int64_t>()[i]));
  return Tensor::from_vector<float>(t.shape(), v);
}

template <class Impl>
Impl& impl_of(const Layer& layer) {
  return dynamic_cast<Impl&>(layer.impl());
}

int count(const std::string& class_name) {
  int n = 0;
  for (const auto& c : cases()) n += c.value("class_name", "") == class_name;
  return n;
}

TEST(AffineTransform, MatchesKerasForEveryFillModeAndInterpolation) {
  int checked = 0;
  for (const auto& c : cases()) {
    if (c.value("kind", "") != "affine_transform") continue;
    const ops::AffineTransformOptions o{.interpolation = c.at("interpolation"),
                                        .fill_mode = c.at("fill_mode"),
                                        .fill_value = c.at("fill_value").get<float>()};
    const auto op = [&](Graph&, Output x, const std::vector<Output>& p) {
      return ops::image_affine_transform(x, p[0], o);
    };
    const Tensor y = run(op, golden_tensor(c.at("images")), {golden_tensor(c.at("transforms"))});
    EXPECT_TRUE(golden_near(y, c.at("output"), o.fill_mode + " " + o.interpolation));
    ++checked;
  }
  EXPECT_EQ(checked, 16);
}

// Each layer case: the layer made from Keras's config, its transform on Keras's parameters.
template <class Impl>
void expect_layer_cases(const std::string& class_name,
                        const std::function<Output(const Impl&, Output, const std::vector<Output>&)>& transform,
                        const std::vector<std::string>& keys) {
  ASSERT_GT(count(class_name), 0);
  for (const auto& c : cases()) {
    if (c.value("class_name", "") != class_name || c.at("params").empty()) continue;
    SCOPED_TRACE(class_name + " " + c.at("config").dump());
    Layer layer = io::layer_from_config(ordered_json{{"class_name", class_name}, {"config", c.at("config")}}, {});
    const Tensor images = golden_tensor(c.at("images"));
    layer.impl().build({{images.shape().with_dim(0, kUnknownDim), DType::float32}});
    std::vector<Tensor> params;
    for (const auto& k : keys) params.push_back(as_float(param(c, k)));
    const auto op = [&](Graph&, Output x, const std::vector<Output>& p) {
      return transform(impl_of<Impl>(layer), x, p);
    };
    const Tensor y = run(op, images, params);
    EXPECT_TRUE(golden_near(y, c.at("output"), class_name));
  }
}

TEST(RandomRotation, TurnsAsKerasGivenTheAngles) {
  expect_layer_cases<RandomRotationImpl>(
      "RandomRotation",
      [](const RandomRotationImpl& l, Output x, const std::vector<Output>& p) {
        return l.transform(x, ops::reshape(p[0], {-1, 1}));
      },
      {"angle"});
}

TEST(RandomZoom, ZoomsAsKerasGivenTheZooms) {
  expect_layer_cases<RandomZoomImpl>(
      "RandomZoom",
      [](const RandomZoomImpl& l, Output x, const std::vector<Output>& p) {
        return l.transform(x, ops::concat({p[1], p[0]}, 1));  // [width zoom, height zoom]
      },
      {"height_zoom", "width_zoom"});
}

TEST(RandomTranslation, ShiftsAsKerasGivenTheTranslations) {
  expect_layer_cases<RandomTranslationImpl>(
      "RandomTranslation",
      [](const RandomTranslationImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"translations"});
}

TEST(RandomFlip, FlipsAsKerasGivenTheFlips) {
  expect_layer_cases<RandomFlipImpl>(
      "RandomFlip",
      [](const RandomFlipImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"flips"});
}

TEST(RandomContrast, AdjustsAsKerasGivenTheFactors) {
  expect_layer_cases<RandomContrastImpl>(
      "RandomContrast",
      [](const RandomContrastImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"contrast_factor"});
}

TEST(RandomBrightness, AddsAsKerasGivenTheDeltas) {
  expect_layer_cases<RandomBrightnessImpl>(
      "RandomBrightness",
      [](const RandomBrightnessImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"rgb_delta"});
}

TEST(RandomCrop, CropsAsKerasGivenTheOffsets) {
  expect_layer_cases<RandomCropImpl>(
      "RandomCrop",
      [](const RandomCropImpl& l, Output x, const std::vector<Output>& p) {
        return l.transform(x, ops::reshape(ops::concat({ops::reshape(p[0], {1, 1}), ops::reshape(p[1], {1, 1})}, 1),
                                           {1, 2}));
      },
      {"h_start", "w_start"});
}

// Images not larger than the window: Keras's window resized, drawn from nothing; the same
// in inference (Keras's documented inference output).
TEST(RandomCrop, TakesKerasWindowOfImagesNotLargerThanIt) {
  int checked = 0;
  for (const auto& c : cases()) {
    if (c.value("class_name", "") != "RandomCrop" || !c.at("params").empty()) continue;
    Layer layer = io::layer_from_config(ordered_json{{"class_name", "RandomCrop"}, {"config", c.at("config")}}, {});
    const Tensor images = golden_tensor(c.at("images"));
    layer.impl().build({{images.shape().with_dim(0, kUnknownDim), DType::float32}});
    for (bool training : {true, false}) {
      const Tensor y = run([&](Graph& g, Output x, const std::vector<Output>&) { return layer.impl().call(g, {x})[0]; },
                           images, {}, training);
      EXPECT_TRUE(golden_near(y, c.at("output"), training ? "training" : "inference"));
    }
    ++checked;
  }
  EXPECT_EQ(checked, 2);
}

TEST(RandomShear, ShearsAsKerasGivenTheFactors) {
  expect_layer_cases<RandomShearImpl>(
      "RandomShear",
      [](const RandomShearImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"shear_factor"});
}

TEST(RandomInvert, InvertsAsKerasGivenTheDraws) {
  expect_layer_cases<RandomInvertImpl>(
      "RandomInvert",
      [](const RandomInvertImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"apply_inversion"});
}

TEST(Solarization, SolarizesAsKerasGivenTheAdditionsAndThresholds) {
  expect_layer_cases<SolarizationImpl>(
      "Solarization",
      [](const SolarizationImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0], p[1]); },
      {"additions", "thresholds"});
}

TEST(RandomGrayscale, TurnsGreyAsKerasGivenTheDraws) {
  expect_layer_cases<RandomGrayscaleImpl>(
      "RandomGrayscale",
      [](const RandomGrayscaleImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"should_apply"});
}

TEST(RandomHue, TurnsHuesAsKerasGivenTheDeltas) {
  expect_layer_cases<RandomHueImpl>(
      "RandomHue", [](const RandomHueImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"delta"});
}

TEST(RandomSaturation, ScalesSaturationAsKerasGivenTheScales) {
  expect_layer_cases<RandomSaturationImpl>(
      "RandomSaturation",
      [](const RandomSaturationImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"scale"});
}

TEST(RandomColorDegeneration, BlendsTowardsGreyAsKerasGivenTheFactors) {
  expect_layer_cases<RandomColorDegenerationImpl>(
      "RandomColorDegeneration",
      [](const RandomColorDegenerationImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"blend"});
}

// Keras's four layers in its order, with the parameters each was given (some not used).
TEST(RandomColorJitter, ChainsKerasLayersGivenTheirParameters) {
  ASSERT_EQ(count("RandomColorJitter"), 2);
  for (const auto& c : cases()) {
    if (c.value("class_name", "") != "RandomColorJitter") continue;
    SCOPED_TRACE(c.at("config").dump());
    Layer layer =
        io::layer_from_config(ordered_json{{"class_name", "RandomColorJitter"}, {"config", c.at("config")}}, {});
    const auto& given = c.at("params");
    std::vector<std::string> keys;
    std::vector<Tensor> params;
    for (const auto& [key, value] : given.items()) keys.push_back(key), params.push_back(golden_tensor(value));
    const auto op = [&](Graph&, Output x, const std::vector<Output>& p) {
      ColorJitterParams jitter;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        if (keys[i] == "brightness_delta") jitter.brightness_delta = p[i];
        if (keys[i] == "contrast_factor") jitter.contrast_factor = p[i];
        if (keys[i] == "saturation_scale") jitter.saturation_scale = p[i];
        if (keys[i] == "hue_delta") jitter.hue_delta = p[i];
      }
      return impl_of<RandomColorJitterImpl>(layer).transform(x, jitter);
    };
    EXPECT_TRUE(golden_near(run(op, golden_tensor(c.at("images")), params), c.at("output"), "RandomColorJitter"));
  }
}

TEST(RandomPosterization, ClearsLowBitsAsKerasGivenTheShifts) {
  expect_layer_cases<RandomPosterizationImpl>(
      "RandomPosterization",
      [](const RandomPosterizationImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"shift"});
}

TEST(RandomSharpness, BlendsWithTheSmoothedImageAsKerasGivenTheFactors) {
  expect_layer_cases<RandomSharpnessImpl>(
      "RandomSharpness",
      [](const RandomSharpnessImpl& l, Output x, const std::vector<Output>& p) { return l.transform(x, p[0]); },
      {"f"});
}

TEST(RandomGaussianBlur, BlursAsKerasGivenSigmaAndTheDraws) {
  expect_layer_cases<RandomGaussianBlurImpl>(
      "RandomGaussianBlur",
      [](const RandomGaussianBlurImpl& l, Output x, const std::vector<Output>& p) {
        return l.transform(x, p[0], p[1]);
      },
      {"sigma", "apply"});
}

TEST(RandomErasing, ErasesBoxesAsKerasGivenTheBoxesAndFill) {
  expect_layer_cases<RandomErasingImpl>(
      "RandomErasing",
      [](const RandomErasingImpl& l, Output x, const std::vector<Output>& p) {
        return l.transform(x, p[0], p[1], p[2]);
      },
      {"corners", "apply", "fill"});
}

// Not random: Keras's output in training; the identity in inference, as Keras.
TEST(Equalization, EqualizesAsKerasAndKeepsOneBinChannels) {
  ASSERT_EQ(count("Equalization"), 2);
  for (const auto& c : cases()) {
    if (c.value("class_name", "") != "Equalization") continue;
    SCOPED_TRACE(c.at("config").dump());
    Layer layer = io::layer_from_config(ordered_json{{"class_name", "Equalization"}, {"config", c.at("config")}}, {});
    const Tensor images = golden_tensor(c.at("images"));
    const auto call = [&](Graph& g, Output x, const std::vector<Output>&) { return layer.impl().call(g, {x})[0]; };
    EXPECT_TRUE(golden_near(run(call, images, {}, true), c.at("output"), "training"));
    const Tensor same = run(call, images, {}, false);
    for (std::int64_t i = 0; i < images.size(); ++i) ASSERT_EQ(same.item(i), images.item(i)) << "inference";
  }
}

// Not random: Keras's output in inference, and the same in training.
TEST(AutoContrast, StretchesAsKerasAndKeepsFlatChannels) {
  ASSERT_EQ(count("AutoContrast"), 2);
  for (const auto& c : cases()) {
    if (c.value("class_name", "") != "AutoContrast") continue;
    Layer layer = io::layer_from_config(ordered_json{{"class_name", "AutoContrast"}, {"config", c.at("config")}}, {});
    for (bool training : {false, true}) {
      const Tensor y = run([&](Graph& g, Output x, const std::vector<Output>&) { return layer.impl().call(g, {x})[0]; },
                           golden_tensor(c.at("images")), {}, training);
      EXPECT_TRUE(golden_near(y, c.at("output"), training ? "training" : "inference"));
    }
  }
}

}  // namespace

}  // namespace augmentation_golden_test
