// Activation layer: applies a named activation function (see layers/activations.h).
#pragma once

#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct ActivationOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class ActivationImpl : public LayerImpl {
 public:
  ActivationImpl(std::string activation, ActivationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::string activation;
  ActivationOptions options;
};

class Activation : public Layer {
 public:
  explicit Activation(std::string activation, ActivationOptions options = {});
};

}  // namespace strata::layers
