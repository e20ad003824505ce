// RandAugment (Keras 3.15): in training, num_ops operations applied in turn, each chosen
// uniformly (one choice per slot for the whole batch) among Keras's eleven: RandomShear,
// RandomTranslation, RandomRotation, RandomBrightness, RandomColorDegeneration,
// RandomContrast, RandomSharpness, RandomPosterization, Solarization, AutoContrast and
// Equalization (layers/preprocessing/augment_choices.h), built with factor, value_range
// and interpolation as Keras builds them. As Keras, each operation's parameters are drawn
// once per call (per image), so an operation chosen for two slots applies the same
// parameters twice. Seeded and resumable as Dropout; identity in inference.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"
#include "layers/preprocessing/augment_choices.h"

namespace strata::layers {

struct RandAugmentOptions {  // Keras signature order
  PerChannel value_range = {0.0, 255.0};  // increasing, as the operations need; written as given
  std::int64_t num_ops = 2;               // at least 0
  PerChannel factor = 0.5;                // in [0, 1]; Keras keeps and writes the [lower, upper] pair
  std::string interpolation = "bilinear";  // "bilinear" or "nearest"
  std::optional<std::uint64_t> seed;       // default: drawn from the global seed generator
  std::string data_format;                 // "" = "channels_last"
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &RandAugmentOptions::value_range),
                      keras_field("num_ops", &RandAugmentOptions::num_ops),
                      keras_field("factor", &RandAugmentOptions::factor),
                      keras_field("interpolation", &RandAugmentOptions::interpolation),
                      keras_field("seed", &RandAugmentOptions::seed),
                      keras_field("data_format", &RandAugmentOptions::data_format, Spelling::data_format)};
  }
};

class RandAugmentImpl : public LayerImpl {
 public:
  explicit RandAugmentImpl(RandAugmentOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // The slots' choices of a call: (1, num_ops) operation indices, uniform over the eleven.
  Output choices(Output images) const;
  // The training transform given the choices; the operations' own parameters drawn for
  // call `call` (the same call draws the same parameters).
  Output transform(Output images, Output choices, int call) const;

  std::uint64_t seed;  // options.seed, or drawn
  RandAugmentOptions options;

 private:
  std::unique_ptr<AugmentChoices> ops_;
};

class RandAugment : public Layer {
 public:
  explicit RandAugment(RandAugmentOptions options = {});
};

}  // namespace strata::layers
