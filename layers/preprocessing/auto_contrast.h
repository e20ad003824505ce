// AutoContrast: each image's channels stretched so that their lowest value becomes
// value_range[0] and their highest value_range[1] (min and max over axes 1 and 2, as Keras
// takes them whatever the data_format); a channel of one value (0 / 0) keeps its input.
// Not random: Keras applies it in inference as in training, and so does Strata.
// Gradients flow as through the arithmetic, the minimum and the maximum.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/per_channel.h"

namespace strata::layers {

struct AutoContrastOptions {  // Keras signature order
  PerChannel value_range = {0.0, 255.0};  // kept sorted
  std::string data_format;                // "" = "channels_last" (a base layer argument)
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("value_range", &AutoContrastOptions::value_range),
                      keras_field("data_format", &AutoContrastOptions::data_format, Spelling::data_format)};
  }
};

class AutoContrastImpl : public LayerImpl {
 public:
  explicit AutoContrastImpl(AutoContrastOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  AutoContrastOptions options;
};

class AutoContrast : public Layer {
 public:
  explicit AutoContrast(AutoContrastOptions options = {});
};

}  // namespace strata::layers
