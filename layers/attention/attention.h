// Attention: dot-product attention (Luong-style), Keras's keras.layers.Attention. Called on
// [query, value] or [query, value, key] (key defaults to value), shapes (batch, Tq, dim),
// (batch, Tv, value_dim), (batch, Tv, dim):
//   scores  = query · keyᵀ (times `scale` with use_scale), or with score_mode "concat"
//             concat_score_weight · Σ tanh(scale·(query_i + key_j)) over dim;
//   scores -= 1e9 where the value mask (and, with use_causal_mask, j > i) hides key j;
//   weights = softmax(scores) over Tv (dropout on them in training);
//   output  = weights · value, zeroed at masked query positions.
// Masks come from the inputs (Embedding(mask_zero), Masking) or, as Keras's
// mask=[query_mask, value_mask], as tensors passed with the call ((batch, Tq) and
// (batch, Tv); nonzero means visible; either may be left undefined): given, they replace
// the inputs' masks. The output carries the query's mask. Call arguments:
// return_attention_scores (a second output, the weights) and use_causal_mask.
//
//   auto outs = layers::Attention()({q, v}, {.mask = {q_mask, v_mask},
//                                            .return_attention_scores = true,
//                                            .use_causal_mask = true});
//   // outs[0]: (batch, Tq, value_dim); outs[1]: the weights, (batch, Tq, Tv)
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/call_tensors.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct AttentionOptions {  // Keras signature order
  bool use_scale = false;
  std::string score_mode = "dot";  // or "concat"
  double dropout = 0.0;
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = AttentionOptions;
    return std::tuple{keras_field("use_scale", &O::use_scale), keras_field("score_mode", &O::score_mode),
                      keras_field("dropout", &O::dropout), keras_field("seed", &O::seed),
                      // tf.keras <= 2.9 kept causality in the config; Keras passes it with the call.
                      keras_refused("causal", "false").because("tf.keras's causal config; call with use_causal_mask").unwritten()};
  }
};

// The call arguments, in the order of Keras's call signature (after inputs; training is
// the program's mode). `mask`: empty, or [query_mask, value_mask] (Keras also takes a
// third, unused), each a tensor or undefined (None); recorded as the tensor arguments
// query_mask and value_mask (call_tensors.h), false for a None. A list given replaces the
// inputs' masks even when both are None, as in Keras.
struct AttentionCall {
  std::vector<KerasTensor> mask;
  bool return_attention_scores = false;
  bool use_causal_mask = false;
};

class AttentionImpl : public LayerImpl, public TakesTensorArguments {
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
  std::vector<TensorArgument> tensor_arguments() const override;

  AttentionOptions options;
  std::uint64_t seed;  // options.seed, or drawn
  Variable scale, concat_score_weight;

 protected:
  // (batch, Tq, Tv) scores of query against key.
  virtual Output scores(Graph& graph, Output query, Output key);
  void check_inputs(const std::vector<TensorSpec>& inputs) const;

 private:
  // The masks a call uses, 0/1 float32: given tensors, else the inputs' Keras masks.
  std::pair<Output, Output> call_masks(Graph& graph, const CallInputs<Output>& call,
                                       const std::vector<Output>& masks) const;
};

class Attention : public Layer {
 public:
  explicit Attention(AttentionOptions options = {});
  using Layer::operator();
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs, AttentionCall call) const;
};

// A typed call of Attention or AdditiveAttention: the masks join the inputs as tensor
// arguments, the flags as Keras names them.
std::vector<KerasTensor> call_attention(const Layer& layer, const std::vector<KerasTensor>& inputs,
                                        const AttentionCall& call);

// Keras's cast of a mask to bool, as float32 0/1: nonzero is visible.
Output mask_as_visible(Graph& graph, Output mask);
// Refuses, with a ShapeError naming both shapes, a mask that does not fit `expected`
// (each dim equal, 1 or unknown on either side), e.g. a value mask against (batch, Tv).
void check_mask_shape(const std::string& what, const Shape& mask, const Shape& expected, const std::string& meaning);

}  // namespace strata::layers
