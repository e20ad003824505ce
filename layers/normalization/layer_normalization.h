// LayerNormalization: per-sample mean and biased variance over `axis` (default the last),
// y = gamma·(x − mean)/sqrt(var + epsilon) + beta; gamma and beta shaped like those axes.
// With Keras's rms_scaling (deprecated there, kept for its files): y = gamma·x/sqrt(var +
// epsilon), x not centered, gamma always and no beta, as Keras computes it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct LayerNormalizationOptions {  // Keras signature order
  std::vector<std::int64_t> axis = {-1};
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;
  bool rms_scaling = false;
  Initializer beta_initializer = "zeros";
  Initializer gamma_initializer = "ones";
  Regularizer beta_regularizer;
  Regularizer gamma_regularizer;
  Constraint beta_constraint;
  Constraint gamma_constraint;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = LayerNormalizationOptions;
    return std::tuple{keras_field("axis", &O::axis, Spelling::compact),
                      keras_field("epsilon", &O::epsilon),
                      keras_field("center", &O::center),
                      keras_field("scale", &O::scale),
                      keras_field("rms_scaling", &O::rms_scaling),
                      keras_field("beta_initializer", &O::beta_initializer),
                      keras_field("gamma_initializer", &O::gamma_initializer),
                      keras_field("beta_regularizer", &O::beta_regularizer),
                      keras_field("gamma_regularizer", &O::gamma_regularizer),
                      keras_field("beta_constraint", &O::beta_constraint),
                      keras_field("gamma_constraint", &O::gamma_constraint)};
  }
};

class LayerNormalizationImpl : public LayerImpl {
 public:
  explicit LayerNormalizationImpl(LayerNormalizationOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::float32_inside; }

  LayerNormalizationOptions options;
  Variable gamma, beta;
  Shape input_shape;  // as built
};

class LayerNormalization : public Layer {
 public:
  explicit LayerNormalization(LayerNormalizationOptions options = {});
};

}  // namespace strata::layers
