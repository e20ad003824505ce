// UnitNormalization: scales each sample to unit L2 norm over `axis` (default the last),
// y = x · min(1 / sqrt(Σ x²), 1e12), as keras.layers.UnitNormalization. No weights.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct UnitNormalizationOptions {  // Keras signature order
  std::vector<std::int64_t> axis = {-1};
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("axis", &UnitNormalizationOptions::axis, Spelling::compact)};
  }
};

class UnitNormalizationImpl : public LayerImpl {
 public:
  explicit UnitNormalizationImpl(UnitNormalizationOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  UnitNormalizationOptions options;
};

class UnitNormalization : public Layer {
 public:
  explicit UnitNormalization(UnitNormalizationOptions options = {});
};

}  // namespace strata::layers
