// RandomSaturation: in training, each image's saturation scaled: to HSV (TensorFlow's
// rgb_to_hsv, on the images as they are), saturation times u / (1 - u + 1e-7) with u drawn
// per image from Keras's factor (bounds [-1, 1]: a number f is [-f, f]; a negative scale
// clips to grey), clipped to value_range (Keras clips the saturation channel to it), back to
// RGB. Identity in inference. Images have three channels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomSaturationOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};  // Keras keeps it sorted
  std::string data_format;                // "" = "channels_last"
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomSaturationOptions::value_range),
                      keras_field("data_format", &RandomSaturationOptions::data_format, Spelling::data_format),
                      keras_field("seed", &RandomSaturationOptions::seed)};
  }
};

class RandomSaturationImpl : public LayerImpl {
 public:
  RandomSaturationImpl(PerChannel factor, RandomSaturationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `scale` (batch, 1, 1, 1), the
  // saturation's factor u / (1 - u + 1e-7) (Keras's transformation["factor"]).
  Output transform(Output images, Output scale) const;
  // Keras's parameter from uniform draws in [0, 1): `u` (batch, 1) -> scale.
  Output from_draws(Output u) const;

  PerChannel factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomSaturationOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomSaturation : public Layer {
 public:
  explicit RandomSaturation(PerChannel factor, RandomSaturationOptions options = {});
};

}  // namespace strata::layers
