// AdditiveAttention: Bahdanau-style attention, keras.layers.AdditiveAttention. As
// Attention (layers/attention/attention.h: inputs, masks, dropout, call arguments), with scores
//   scores[i, j] = Σ_d scale_d · tanh(query[i, d] + key[j, d])
// where `scale` is a weight of shape (dim,) when use_scale (the default), else 1.
#pragma once

#include "layers/attention/attention.h"

namespace strata::layers {

struct AdditiveAttentionOptions {  // Keras signature order
  bool use_scale = true;
  double dropout = 0.0;
  std::optional<std::uint64_t> seed;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = AdditiveAttentionOptions;
    return std::tuple{keras_field("use_scale", &O::use_scale), keras_field("dropout", &O::dropout),
                      keras_field("seed", &O::seed),
                      keras_refused("causal", "false").because("tf.keras's causal config; call with use_causal_mask").unwritten()};
  }
};

class AdditiveAttentionImpl : public AttentionImpl {
 public:
  explicit AdditiveAttentionImpl(AdditiveAttentionOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;

  AdditiveAttentionOptions additive_options;  // what its config holds

 protected:
  Output scores(Graph& graph, Output query, Output key) override;
};

class AdditiveAttention : public Layer {
 public:
  explicit AdditiveAttention(AdditiveAttentionOptions options = {});
  using Layer::operator();
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs, AttentionCall call) const;
};

}  // namespace strata::layers
