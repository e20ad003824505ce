// RandomFlip: in training, each image flipped left-right ("horizontal"), top-bottom
// ("vertical") or both ("horizontal_and_vertical") with probability 1/2. As Keras draws
// it, one draw per image decides both flips of "horizontal_and_vertical": an image is
// turned half a turn or left as it is. Identity in inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct RandomFlipOptions {  // Keras signature order
  std::string mode = "horizontal_and_vertical";
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string data_format;            // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("mode", &RandomFlipOptions::mode), keras_field("seed", &RandomFlipOptions::seed),
                      keras_field("data_format", &RandomFlipOptions::data_format, Spelling::data_format)};
  }
};

class RandomFlipImpl : public LayerImpl {
 public:
  explicit RandomFlipImpl(RandomFlipOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `flips` (batch, 1, 1, 1), 1
  // where the image is flipped (transform_images's "flips").
  Output transform(Output images, Output flips) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomFlipOptions options;
};

class RandomFlip : public Layer {
 public:
  explicit RandomFlip(RandomFlipOptions options = {});
};

}  // namespace strata::layers
