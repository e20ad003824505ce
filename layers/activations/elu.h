// ELU: x for x > 0, alpha * (exp(x) - 1) otherwise.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ELUOptions {  // Keras signature order
  double alpha = 1.0;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{keras_field("alpha", &ELUOptions::alpha)}; }
};

class ELUImpl : public LayerImpl {
 public:
  explicit ELUImpl(ELUOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  ELUOptions options;
};

class ELU : public Layer {
 public:
  explicit ELU(ELUOptions options = {});
};

}  // namespace strata::layers
