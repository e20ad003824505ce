// Rescaling: x * scale + offset (e.g. 1/255 to bring pixels to [0, 1], or 1/127.5 with
// offset -1 for [-1, 1]).
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct RescalingOptions {  // Keras signature order (after scale)
  double offset = 0.0;
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("offset", &RescalingOptions::offset)};
  }
};

class RescalingImpl : public LayerImpl {
 public:
  RescalingImpl(double scale, RescalingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  double scale;
  RescalingOptions options;
};

class Rescaling : public Layer {
 public:
  explicit Rescaling(double scale, RescalingOptions options = {});
};

}  // namespace strata::layers
