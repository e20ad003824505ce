// Attention: dot-product attention (Luong-style), Keras's keras.layers.Attention. Called on
// [query, value] or [query, value, key] (key defaults to value), shapes (batch, Tq, dim),
// (batch, Tv, value_dim), (batch, Tv, dim):
//   scores  = query · keyᵀ (times `scale` with use_scale), or with score_mode "concat"
//             concat_score_weight · Σ tanh(scale·(query_i + key_j)) over dim;
//   scores -= 1e9 where the value mask (and, with use_causal_mask, j > i) hides key j;
//   weights = softmax(scores) over Tv (dropout on them in training);
//   output  = weights · value, zeroed at masked query positions.
// Masks come from the inputs (Embedding(mask_zero), Masking); the output carries the
// query's. Call arguments: return_attention_scores (a second output, the weights) and
// use_causal_mask.
//
//   auto outs = layers::Attention()({q, v}, {.return_attention_scores = true,
//                                            .use_causal_mask = true});
//   // outs[0]: (batch, Tq, value_dim); outs[1]: the weights, (batch, Tq, Tv)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct AttentionOptions {  // Keras signature order
  bool use_scale = false;
  std::string score_mode = "dot";  // or "concat"
  double dropout = 0.0;
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;

  static constexpr auto keras_fields() {
    using O = AttentionOptions;
    return std::tuple{keras_field("use_scale", &O::use_scale), keras_field("score_mode", &O::score_mode),
                      keras_field("dropout", &O::dropout), keras_field("seed", &O::seed),
                      // tf.keras <= 2.9 kept causality in the config; Keras passes it with the call.
                      keras_refused("causal", "false").because("tf.keras's causal config; call with use_causal_mask").unwritten()};
  }
};

// The call arguments, in the order of Keras's call signature (after inputs, mask, training).
struct AttentionCall {
  bool return_attention_scores = false;
  bool use_causal_mask = false;
};

class AttentionImpl : public LayerImpl {
 public:
  explicit AttentionImpl(AttentionOptions options, std::string class_name = "Attention");
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  bool accepts_input_count(std::size_t n) const override { return n == 2 || n == 3; }
  std::vector<std::string> call_argument_names() const override;

  AttentionOptions options;
  std::uint64_t seed;  // options.seed, or drawn
  Variable scale, concat_score_weight;

 protected:
  // (batch, Tq, Tv) scores of query against key.
  virtual Output scores(Graph& graph, Output query, Output key);
  void check_inputs(const std::vector<TensorSpec>& inputs) const;
};

class Attention : public Layer {
 public:
  explicit Attention(AttentionOptions options = {});
  using Layer::operator();
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs, AttentionCall call) const;
};

// The call arguments as Keras names them.
CallArguments attention_call_arguments(const AttentionCall& call);

}  // namespace strata::layers
