// Solarization: in training, each image (mapped from value_range to [0, 255]) gets an
// addition drawn per image, is clipped to [0, 255], and every pixel at or above a threshold
// drawn per image becomes 255 - x; then back to value_range. As Keras 3.15 draws them:
// additions from [addition_factor[0], addition_factor[1] · 255] and thresholds from
// [threshold_factor[0], threshold_factor[1] · 255] (a number f is [0, f]). Identity in
// inference. Gradients flow as through the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct SolarizationOptions {  // Keras signature order
  PerChannel addition_factor = 0.0;   // Keras keeps and writes the [lower, upper] pair
  PerChannel threshold_factor = 0.0;  // likewise
  PerChannel value_range = {0.0, 255.0};  // kept sorted
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string data_format;                // "" = "channels_last" (unused, as in Keras)
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &SolarizationOptions::value_range),
                      keras_field("addition_factor", &SolarizationOptions::addition_factor),
                      keras_field("threshold_factor", &SolarizationOptions::threshold_factor),
                      keras_field("seed", &SolarizationOptions::seed),
                      keras_field("data_format", &SolarizationOptions::data_format, Spelling::data_format)};
  }
};

class SolarizationImpl : public LayerImpl {
 public:
  explicit SolarizationImpl(SolarizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `additions` and `thresholds`,
  // each (batch, 1, 1, 1), in the [0, 255] scale.
  Output transform(Output images, Output additions, Output thresholds) const;

  std::uint64_t seed;  // options.seed, or drawn
  SolarizationOptions options;
};

class Solarization : public Layer {
 public:
  explicit Solarization(SolarizationOptions options = {});
};

}  // namespace strata::layers
