// RandomHue: in training, each image's hue turned by a delta: the image mapped from
// value_range to [0, 1], to HSV (TensorFlow's rgb_to_hsv), hue + delta wrapped into
// [0, 1], back to RGB, clipped to [0, 1] and mapped back to value_range. The delta is
// ±f / 2, f drawn per image from Keras's factor (bounds [0, 1]: a number f is [0, f]) and
// the sign from a second draw, as Keras. Identity in inference. Images have three channels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomHueOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};  // kept as given, as Keras
  std::string data_format;                // "" = "channels_last"
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomHueOptions::value_range),
                      keras_field("data_format", &RandomHueOptions::data_format, Spelling::data_format),
                      keras_field("seed", &RandomHueOptions::seed)};
  }
};

class RandomHueImpl : public LayerImpl {
 public:
  RandomHueImpl(PerChannel factor, RandomHueOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `delta` (batch, 1, 1, 1), the
  // hue's turn in [-0.5, 0.5] (Keras's transformation["factor"]).
  Output transform(Output images, Output delta) const;
  // Keras's parameter from uniform draws in [0, 1): `u` (batch, 2), the sign's and the
  // factor's -> delta.
  Output from_draws(Output u) const;

  PerChannel factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomHueOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomHue : public Layer {
 public:
  explicit RandomHue(PerChannel factor, RandomHueOptions options = {});
};

}  // namespace strata::layers
