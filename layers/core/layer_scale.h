// LayerScale (keras.applications.convnext): x * gamma, a learned scale per channel (the
// last axis) that starts at init_values. ConvNeXt scales each block's residual with it.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct LayerScaleOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{}; }
};

class LayerScaleImpl : public LayerImpl {
 public:
  LayerScaleImpl(double init_values, std::int64_t projection_dim, LayerScaleOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  double init_values;
  std::int64_t projection_dim;
  LayerScaleOptions options;
  Variable gamma;
};

class LayerScale : public Layer {
 public:
  LayerScale(double init_values, std::int64_t projection_dim, LayerScaleOptions options = {});
};

}  // namespace strata::layers
