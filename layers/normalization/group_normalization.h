// GroupNormalization: the channels (axis, default the last) split into `groups` groups;
// each sample is normalized by the mean and biased variance of each group over every
// non-batch axis, then scaled by gamma and shifted by beta per channel:
//   y = (x − mean_g) / sqrt(var_g + epsilon) · gamma + beta,
// as keras.layers.GroupNormalization. groups = -1 is one group per channel (instance
// normalization), groups = 1 normalizes over all of a sample (layer normalization).
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct GroupNormalizationOptions {  // Keras signature order
  std::int64_t groups = 32;
  std::int64_t axis = -1;
  double epsilon = 1e-3;
  bool center = true;
  bool scale = true;
  Initializer beta_initializer = "zeros";
  Initializer gamma_initializer = "ones";
  Regularizer beta_regularizer;
  Regularizer gamma_regularizer;
  Constraint beta_constraint;
  Constraint gamma_constraint;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = GroupNormalizationOptions;
    return std::tuple{keras_field("groups", &O::groups),
                      keras_field("axis", &O::axis),
                      keras_field("epsilon", &O::epsilon),
                      keras_field("center", &O::center),
                      keras_field("scale", &O::scale),
                      keras_field("beta_initializer", &O::beta_initializer),
                      keras_field("gamma_initializer", &O::gamma_initializer),
                      keras_field("beta_regularizer", &O::beta_regularizer),
                      keras_field("gamma_regularizer", &O::gamma_regularizer),
                      keras_field("beta_constraint", &O::beta_constraint),
                      keras_field("gamma_constraint", &O::gamma_constraint)};
  }
};

class GroupNormalizationImpl : public LayerImpl {
 public:
  explicit GroupNormalizationImpl(GroupNormalizationOptions options);
  // Resolves groups = -1 to the channel count, as Keras does (its config then says so).
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  GroupNormalizationOptions options;
  Variable gamma, beta;
};

class GroupNormalization : public Layer {
 public:
  explicit GroupNormalization(GroupNormalizationOptions options = {});
};

}  // namespace strata::layers
