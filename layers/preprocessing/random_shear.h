// RandomShear: in training, each image sheared: the output pixel (x, y) reads the input at
// (x + sx y, y + sy x), sx drawn from x_factor and sy from y_factor (each value in [0, 1];
// a number f is [-f, f]), both negated together for half the images, as Keras draws them.
// The pixels that come from outside filled by fill_mode, bilinear or nearest interpolation.
// Identity in inference. No gradient flows back through the shear
// (ops::image_affine_transform).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomShearOptions {  // Keras signature order
  // Written as given: Keras writes the [lower, upper] pair, which Keras 3.15 itself then
  // refuses to load for a number f ([-f, f] holds a negative value).
  PerChannel x_factor = 0.0;
  PerChannel y_factor = 0.0;
  std::string interpolation = "bilinear";
  std::string fill_mode = "reflect";
  double fill_value = 0.0;
  std::string data_format;  // "" = "channels_last"
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("x_factor", &RandomShearOptions::x_factor, Spelling::bare_single),
                      keras_field("y_factor", &RandomShearOptions::y_factor, Spelling::bare_single),
                      keras_field("fill_mode", &RandomShearOptions::fill_mode),
                      keras_field("interpolation", &RandomShearOptions::interpolation),
                      keras_field("seed", &RandomShearOptions::seed),
                      keras_field("fill_value", &RandomShearOptions::fill_value),
                      keras_field("data_format", &RandomShearOptions::data_format, Spelling::data_format)};
  }
};

class RandomShearImpl : public LayerImpl {
 public:
  explicit RandomShearImpl(RandomShearOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameter given: `shear_factor` (batch, 2), each
  // row [sx, sy] with its sign drawn (transform_images's "shear_factor").
  Output transform(Output images, Output shear_factor) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandomShearOptions options;

 private:
  PerChannel x_range_ = 0.0, y_range_ = 0.0;  // [lower, upper]
};

class RandomShear : public Layer {
 public:
  explicit RandomShear(RandomShearOptions options = {});
};

}  // namespace strata::layers
