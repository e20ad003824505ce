// RandomColorDegeneration: in training, each image blended towards its grey version:
// x + f · (grey - x), grey = 0.2989 R + 0.5870 G + 0.1140 B (keras.ops.image.rgb_to_grayscale),
// clipped to value_range, with f drawn per image from Keras's factor (bounds [-1, 1]: a
// number f is [-f, f]; a negative f moves away from grey). Identity in inference. Images
// have three channels.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomColorDegenerationOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};  // Keras keeps it sorted
  std::string data_format;                // "" = "channels_last"
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomColorDegenerationOptions::value_range),
                      keras_field("data_format", &RandomColorDegenerationOptions::data_format, Spelling::data_format),
                      keras_field("seed", &RandomColorDegenerationOptions::seed)};
  }
};

class RandomColorDegenerationImpl : public LayerImpl {
 public:
  RandomColorDegenerationImpl(PerChannel factor, RandomColorDegenerationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `blend` (batch, 1, 1, 1), the
  // weight of the grey image (Keras's transformation["factor"]).
  Output transform(Output images, Output blend) const;

  PerChannel factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomColorDegenerationOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomColorDegeneration : public Layer {
 public:
  explicit RandomColorDegeneration(PerChannel factor, RandomColorDegenerationOptions options = {});
};

}  // namespace strata::layers
