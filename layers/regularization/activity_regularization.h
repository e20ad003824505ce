// ActivityRegularization: the identity, which adds the activity penalty
// (l1·Σ|y| + l2·Σy²) / batch_size of its output to the model's losses (Graph::add_loss), as
// keras.layers.ActivityRegularization does through its activity_regularizer: in training
// and in evaluation.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ActivityRegularizationOptions {  // Keras signature order
  double l1 = 0.0;
  double l2 = 0.0;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = ActivityRegularizationOptions;
    return std::tuple{keras_field("l1", &O::l1), keras_field("l2", &O::l2)};
  }
};

class ActivityRegularizationImpl : public LayerImpl {
 public:
  explicit ActivityRegularizationImpl(ActivityRegularizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  ActivityRegularizationOptions options;
};

class ActivityRegularization : public Layer {
 public:
  explicit ActivityRegularization(ActivityRegularizationOptions options = {});
};

}  // namespace strata::layers
