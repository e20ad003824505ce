// RandomTranslation: in training, each image shifted by a fraction of its height drawn from
// height_factor and of its width from width_factor (a number f is [-f, f]; a positive
// draw moves the content down / right), the pixels that come from outside filled by
// fill_mode, bilinear or nearest interpolation. Identity in inference. No gradient flows
// back through the shift (ops::image_affine_transform).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct RandomTranslationOptions {  // Keras signature order (after height_factor, width_factor)
  std::string fill_mode = "reflect";
  std::string interpolation = "bilinear";
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  double fill_value = 0.0;
  std::string data_format;  // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("fill_mode", &RandomTranslationOptions::fill_mode),
                      keras_field("interpolation", &RandomTranslationOptions::interpolation),
                      keras_field("seed", &RandomTranslationOptions::seed),
                      keras_field("fill_value", &RandomTranslationOptions::fill_value),
                      keras_field("data_format", &RandomTranslationOptions::data_format, Spelling::data_format)};
  }
};

class RandomTranslationImpl : public LayerImpl {
 public:
  RandomTranslationImpl(PerChannel height_factor, PerChannel width_factor, RandomTranslationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The training transform with Keras's parameters given: `translations` (batch, 2), each
  // row [width shift, height shift] in pixels (transform_images's "translations").
  Output transform(Output images, Output translations) const;

  PerChannel height_factor, width_factor;
  std::uint64_t seed;  // options.seed, or drawn
  RandomTranslationOptions options;

 private:
  double height_lower_ = 0.0, height_upper_ = 0.0, width_lower_ = 0.0, width_upper_ = 0.0;
};

class RandomTranslation : public Layer {
 public:
  RandomTranslation(PerChannel height_factor, PerChannel width_factor, RandomTranslationOptions options = {});
};

}  // namespace strata::layers
