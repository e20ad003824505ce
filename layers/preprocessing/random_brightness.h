// RandomBrightness: in training, a delta drawn per image from factor ([lower, upper] of
// Keras's factor within [-1, 1]: a number f is [-f, f]) times the width of value_range
// added to every pixel, clipped to value_range. Identity in inference. Gradients flow as
// through the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomBrightnessOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};  // Keras keeps it sorted
  std::optional<std::uint64_t> seed;       // default: drawn from the global seed generator
  std::string data_format;                 // "" = "channels_last" (a base layer argument; unused)
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomBrightnessOptions::value_range),
                      keras_field("seed", &RandomBrightnessOptions::seed),
                      keras_field("data_format", &RandomBrightnessOptions::data_format, Spelling::data_format)};
  }
};

class RandomBrightnessImpl : public LayerImpl {
 public:
  RandomBrightnessImpl(PerChannel factor, RandomBrightnessOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `rgb_delta` (batch, 1, 1, 1), in
  // pixel units (the draw times the value range's width).
  Output transform(Output images, Output rgb_delta) const;
  // Keras's parameter from uniform draws in [0, 1): `u` (batch, 1) -> rgb_delta.
  Output from_draws(Output u) const;

  PerChannel factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomBrightnessOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomBrightness : public Layer {
 public:
  explicit RandomBrightness(PerChannel factor, RandomBrightnessOptions options = {});
};

}  // namespace strata::layers
