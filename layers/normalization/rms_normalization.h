// RMSNormalization: y = x · rsqrt(mean(x²) over `axis` + epsilon) · scale, as
// keras.layers.RMSNormalization (Zhang & Sennrich, 2019). The weight `scale` (ones) has the
// shape of the sorted axes' sizes and multiplies by NumPy broadcasting, as in Keras: on the
// input's trailing axes (so axis = 1 of a 3-D input is refused unless broadcasting fits).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct RMSNormalizationOptions {  // Keras signature order
  std::vector<std::int64_t> axis = {-1};
  double epsilon = 1e-6;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = RMSNormalizationOptions;
    return std::tuple{keras_field("axis", &O::axis, Spelling::compact), keras_field("epsilon", &O::epsilon)};
  }
};

class RMSNormalizationImpl : public LayerImpl {
 public:
  explicit RMSNormalizationImpl(RMSNormalizationOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  RMSNormalizationOptions options;
  Variable scale;
};

class RMSNormalization : public Layer {
 public:
  explicit RMSNormalization(RMSNormalizationOptions options = {});
};

}  // namespace strata::layers
