// RandomContrast: in training, each image's pixels moved away from (or towards) the mean
// of its channel over the image: (x - mean) * f + mean, clipped to value_range, with f
// drawn per image from [1 - lower, 1 + upper] of Keras's factor (bounds [0, 1]: a number f
// is [0, f], so f = 0.2 draws from [1, 1.2], as Keras 3.15 draws it). Identity in
// inference. Gradients flow as through the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomContrastOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last" (a base layer argument in Keras)
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomContrastOptions::value_range),
                      keras_field("seed", &RandomContrastOptions::seed),
                      keras_field("data_format", &RandomContrastOptions::data_format, Spelling::data_format)};
  }
};

class RandomContrastImpl : public LayerImpl {
 public:
  RandomContrastImpl(PerChannel factor, RandomContrastOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `contrast_factor` (batch, 1, 1, 1).
  Output transform(Output images, Output contrast_factor) const;
  // Keras's parameter from uniform draws in [0, 1): `u` (batch, 1) -> contrast_factor.
  Output from_draws(Output u) const;

  PerChannel factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomContrastOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomContrast : public Layer {
 public:
  explicit RandomContrast(PerChannel factor, RandomContrastOptions options = {});
};

}  // namespace strata::layers
