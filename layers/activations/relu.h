// ReLU: Keras's rectified linear unit layer with its three knobs. For x >= threshold it
// passes x (capped at max_value); below, negative_slope * (x - threshold).
#pragma once

#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ReLUOptions {  // Keras signature order
  std::optional<double> max_value;  // none: unbounded
  double negative_slope = 0.0;
  double threshold = 0.0;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = ReLUOptions;
    return std::tuple{keras_field("max_value", &O::max_value),
                      keras_field("negative_slope", &O::negative_slope),
                      keras_field("threshold", &O::threshold)};
  }
};

class ReLUImpl : public LayerImpl {
 public:
  explicit ReLUImpl(ReLUOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  ReLUOptions options;
};

class ReLU : public Layer {
 public:
  explicit ReLU(ReLUOptions options = {});
};

}  // namespace strata::layers
