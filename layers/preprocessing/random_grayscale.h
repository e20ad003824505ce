// RandomGrayscale: in training, each image turned grey with probability `factor`: every
// channel becomes 0.2989 R + 0.5870 G + 0.1140 B (keras.ops.image.rgb_to_grayscale; a
// one-channel image is grey already). Identity in inference. Keras writes no seed in its
// config; Strata's seed option is not written either. Gradients flow as through the sums.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct RandomGrayscaleOptions {  // Keras signature order
  double factor = 0.5;
  std::string data_format;  // "" = "channels_last"
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &RandomGrayscaleOptions::factor),
                      keras_field("data_format", &RandomGrayscaleOptions::data_format, Spelling::data_format)};
  }
};

class RandomGrayscaleImpl : public LayerImpl {
 public:
  explicit RandomGrayscaleImpl(RandomGrayscaleOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `apply` (batch, 1, 1, 1), 1 where
  // the image turns grey.
  Output transform(Output images, Output apply) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomGrayscaleOptions options;
};

class RandomGrayscale : public Layer {
 public:
  explicit RandomGrayscale(RandomGrayscaleOptions options = {});
};

}  // namespace strata::layers
