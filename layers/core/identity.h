// Identity: passes its input through unchanged (a placeholder Keras models keep, e.g.
// where an optional block is switched off).
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct IdentityOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{}; }
};

class IdentityImpl : public LayerImpl {
 public:
  explicit IdentityImpl(IdentityOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  IdentityOptions options;
};

class Identity : public Layer {
 public:
  explicit Identity(IdentityOptions options = {});
};

}  // namespace strata::layers
