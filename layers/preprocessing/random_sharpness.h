// RandomSharpness: in training, each image blended with its smoothed version: smoothed is
// a 3 x 3 filter per channel (1/13 around, 5/13 at the centre, zero padding, Keras's
// depthwise convolution), and the image becomes x + (1 - 2f) · (smoothed - x), clipped to
// value_range, f drawn per image from Keras's factor (bounds [0, 1]: a number f is [0, f];
// f above 0.5 sharpens). Identity in inference. Gradients flow as through the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomSharpnessOptions {  // Keras signature order (after factor)
  PerChannel value_range = {0.0, 255.0};  // Keras keeps it sorted
  std::string data_format;                // "" = "channels_last"
  std::optional<std::uint64_t> seed;      // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandomSharpnessOptions::value_range),
                      keras_field("data_format", &RandomSharpnessOptions::data_format, Spelling::data_format),
                      keras_field("seed", &RandomSharpnessOptions::seed)};
  }
};

class RandomSharpnessImpl : public LayerImpl {
 public:
  RandomSharpnessImpl(PerChannel factor, RandomSharpnessOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `f` (batch, 1, 1, 1) (Keras's
  // transformation["factor"], before it doubles it).
  Output transform(Output images, Output f) const;

  PerChannel factor;  // Keras keeps and writes the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomSharpnessOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;
};

class RandomSharpness : public Layer {
 public:
  explicit RandomSharpness(PerChannel factor, RandomSharpnessOptions options = {});
};

}  // namespace strata::layers
