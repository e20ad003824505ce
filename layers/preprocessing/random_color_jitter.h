// RandomColorJitter: in training, Keras's RandomBrightness, RandomContrast,
// RandomSaturation and RandomHue applied in that order, each whose factor is given, all
// with value_range; their parameters drawn per image as each of those layers draws them
// (one draw of (seed, call, step) for all four). Identity in inference. Keras builds the
// four without data_format, so they read channels last whatever the layer's data_format:
// Strata refuses channels_first rather than computing something else.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"
#include "layers/preprocessing/random_brightness.h"
#include "layers/preprocessing/random_contrast.h"
#include "layers/preprocessing/random_hue.h"
#include "layers/preprocessing/random_saturation.h"

namespace strata::layers {

struct RandomColorJitterOptions {  // Keras signature order
  PerChannel value_range = {0.0, 255.0};  // kept as given, as Keras
  std::optional<PerChannel> brightness_factor;  // none: no brightness change; written as given
  std::optional<PerChannel> contrast_factor;
  std::optional<PerChannel> saturation_factor;
  std::optional<PerChannel> hue_factor;
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last", the only one Keras's sub-layers read
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{
        keras_field("value_range", &RandomColorJitterOptions::value_range),
        keras_field("brightness_factor", &RandomColorJitterOptions::brightness_factor, Spelling::bare_single),
        keras_field("contrast_factor", &RandomColorJitterOptions::contrast_factor, Spelling::bare_single),
        keras_field("saturation_factor", &RandomColorJitterOptions::saturation_factor, Spelling::bare_single),
        keras_field("hue_factor", &RandomColorJitterOptions::hue_factor, Spelling::bare_single),
        keras_field("seed", &RandomColorJitterOptions::seed),
        keras_field("data_format", &RandomColorJitterOptions::data_format, Spelling::data_format)};
  }
};

// Keras's parameters of one application: each (batch, 1, 1, 1), or an invalid Output where
// its factor is not given.
struct ColorJitterParams {
  Output brightness_delta;   // in pixel units (RandomBrightness's rgb_delta)
  Output contrast_factor;    // RandomContrast's
  Output saturation_scale;   // RandomSaturation's u / (1 - u + 1e-7)
  Output hue_delta;          // RandomHue's ±f / 2
};

class RandomColorJitterImpl : public LayerImpl {
 public:
  explicit RandomColorJitterImpl(RandomColorJitterOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given.
  Output transform(Output images, const ColorJitterParams& params) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomColorJitterOptions options;

 private:
  // Keras's four layers, for their factor ranges and transforms.
  std::shared_ptr<RandomBrightnessImpl> brightness_;
  std::shared_ptr<RandomContrastImpl> contrast_;
  std::shared_ptr<RandomSaturationImpl> saturation_;
  std::shared_ptr<RandomHueImpl> hue_;
};

class RandomColorJitter : public Layer {
 public:
  explicit RandomColorJitter(RandomColorJitterOptions options = {});
};

}  // namespace strata::layers
