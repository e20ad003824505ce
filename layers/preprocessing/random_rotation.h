// RandomRotation: in training, each image turned about its centre by an angle drawn
// uniformly from factor * 360 degrees ([lower, upper] of Keras's factor: a number f is
// [-f, f]), the pixels that come from outside filled by fill_mode (TensorFlow's affine
// transform: reflect, wrap, constant with fill_value, nearest), bilinear or nearest
// interpolation. Identity in inference. No gradient flows back through the turn
// (ops::image_affine_transform).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomRotationOptions {  // Keras signature order (after factor)
  std::string fill_mode = "reflect";
  std::string interpolation = "bilinear";
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  double fill_value = 0.0;
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("fill_mode", &RandomRotationOptions::fill_mode),
                      keras_field("interpolation", &RandomRotationOptions::interpolation),
                      keras_field("seed", &RandomRotationOptions::seed),
                      keras_field("fill_value", &RandomRotationOptions::fill_value),
                      keras_field("data_format", &RandomRotationOptions::data_format, Spelling::data_format)};
  }
};

class RandomRotationImpl : public LayerImpl {
 public:
  RandomRotationImpl(PerChannel factor, RandomRotationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `angles` (batch, 1), in degrees.
  Output transform(Output images, Output angles) const;

  PerChannel factor;  // as given; Keras writes it back as the [lower, upper] pair
  std::uint64_t seed;  // options.seed, or drawn
  RandomRotationOptions options;

 private:
  double lower_ = 0.0, upper_ = 0.0;  // fractions of a full turn
};

class RandomRotation : public Layer {
 public:
  explicit RandomRotation(PerChannel factor, RandomRotationOptions options = {});
};

}  // namespace strata::layers
