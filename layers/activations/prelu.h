// PReLU: x for x >= 0, alpha * x below, with a learned alpha per element of the input
// (batch excluded), shared (size 1) along `shared_axes` (1 is the first non-batch axis).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct PReLUOptions {  // Keras signature order
  Initializer alpha_initializer = "zeros";
  Regularizer alpha_regularizer;
  Constraint alpha_constraint;
  std::optional<std::vector<std::int64_t>> shared_axes;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = PReLUOptions;
    return std::tuple{keras_field("alpha_initializer", &O::alpha_initializer),
                      keras_field("alpha_regularizer", &O::alpha_regularizer),
                      keras_field("alpha_constraint", &O::alpha_constraint),
                      keras_field("shared_axes", &O::shared_axes)};
  }
};

class PReLUImpl : public LayerImpl {
 public:
  explicit PReLUImpl(PReLUOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  PReLUOptions options;
  Variable alpha;
};

class PReLU : public Layer {
 public:
  explicit PReLU(PReLUOptions options = {});
};

}  // namespace strata::layers
