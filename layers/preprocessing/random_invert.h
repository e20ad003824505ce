// RandomInvert: in training, each image replaced by value_range[1] - x with probability p,
// p itself drawn per image from Keras's factor (bounds [0, 1]: a number f is [0, f]; the
// default 1 gives p uniform on [0, 1], an inversion rate of 1/2). Identity in inference.
// Gradients flow as through the arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomInvertOptions {  // Keras signature order
  PerChannel factor = 1.0;  // Keras keeps and writes the [lower, upper] pair
  PerChannel value_range = {0.0, 255.0};
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last" (unused, as in Keras)
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("factor", &RandomInvertOptions::factor),
                      keras_field("value_range", &RandomInvertOptions::value_range),
                      keras_field("seed", &RandomInvertOptions::seed),
                      keras_field("data_format", &RandomInvertOptions::data_format, Spelling::data_format)};
  }
};

class RandomInvertImpl : public LayerImpl {
 public:
  explicit RandomInvertImpl(RandomInvertOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `apply` (batch, 1, 1, 1), 1 where
  // the image is inverted (transform_images's "apply_inversion").
  Output transform(Output images, Output apply) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomInvertOptions options;
};

class RandomInvert : public Layer {
 public:
  explicit RandomInvert(RandomInvertOptions options = {});
};

}  // namespace strata::layers
