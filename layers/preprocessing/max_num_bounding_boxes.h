// MaxNumBoundingBoxes: Keras's layer that pads or truncates a data pipeline's bounding
// boxes ({"boxes", "labels"}) to max_number per image and passes images through unchanged.
// A Strata layer sees tensors, not bounding-box dicts, so it is the identity on its input
// (Keras's transform_images), in training and inference; boxes are a data pipeline's
// business. fill_value (the padding's value) is kept for the options' sake; Keras does not
// write it to the config, and neither does Strata.
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct MaxNumBoundingBoxesOptions {  // Keras signature order (after max_number)
  std::int64_t fill_value = -1;  // not in Keras's config
  std::string data_format;       // "" = "channels_last" (unused, as in Keras)
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &MaxNumBoundingBoxesOptions::data_format, Spelling::data_format)};
  }
};

class MaxNumBoundingBoxesImpl : public LayerImpl {
 public:
  MaxNumBoundingBoxesImpl(std::int64_t max_number, MaxNumBoundingBoxesOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  std::int64_t max_number;
  MaxNumBoundingBoxesOptions options;
};

class MaxNumBoundingBoxes : public Layer {
 public:
  explicit MaxNumBoundingBoxes(std::int64_t max_number, MaxNumBoundingBoxesOptions options = {});
};

}  // namespace strata::layers
