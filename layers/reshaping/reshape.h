// Reshape: (batch, ...) -> (batch, *target_shape); target_shape excludes the batch
// dimension and may hold one -1.
#pragma once

#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct ReshapeOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class ReshapeImpl : public LayerImpl {
 public:
  ReshapeImpl(Shape target_shape, ReshapeOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  Shape target_shape;
  ReshapeOptions options;
};

class Reshape : public Layer {
 public:
  explicit Reshape(Shape target_shape, ReshapeOptions options = {});
};

}  // namespace strata::layers
