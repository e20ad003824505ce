// ReversibleEmbedding: keras.layers.ReversibleEmbedding, an Embedding that can also be called
// the other way, from vectors back to scores over the vocabulary, as language models tie
// their input and output embeddings:
//   forward  (reverse=false): integer ids (batch, ...) -> rows of embeddings (input_dim,
//            output_dim), as Embedding (mask_zero included);
//   reverse  (reverse=true):  x (batch, ..., output_dim) -> x · embeddingsᵀ (batch, ...,
//            input_dim), or x · reverse_embeddings (output_dim, input_dim) when
//            tie_weights=false; with logit_soft_cap c, c · tanh(logits / c). No mask.
//
//   auto emb = layers::ReversibleEmbedding(1000, 64);
//   auto h = emb(ids);                                      // (batch, T, 64)
//   auto logits = emb.call_with({h}, {{"reverse", true}})[0];  // (batch, T, 1000)
//
// The reverse call is recorded like any call argument: a saved model writes it in the
// node's kwargs ({"reverse": true}), as Keras does, and reads it back from Keras's files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct ReversibleEmbeddingOptions {  // Keras signature order (after input_dim, output_dim)
  bool tie_weights = true;
  Initializer embeddings_initializer = "uniform";
  Regularizer embeddings_regularizer;
  Constraint embeddings_constraint;
  bool mask_zero = false;
  // The dtype the reverse call computes in: null or "float32", or "bfloat16" / "float16",
  // emulated as Strata emulates those compute dtypes (docs/precision.md): the vectors, the
  // table, the product and the soft cap each rounded, as TensorFlow computes them in it.
  std::optional<std::string> reverse_dtype;
  std::optional<double> logit_soft_cap;
  Regularizer activity_regularizer;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // Keras's get_config order.
  static constexpr auto keras_fields() {
    using O = ReversibleEmbeddingOptions;
    return std::tuple{keras_field("embeddings_initializer", &O::embeddings_initializer),
                      keras_field("embeddings_regularizer", &O::embeddings_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("embeddings_constraint", &O::embeddings_constraint),
                      keras_field("mask_zero", &O::mask_zero),
                      keras_refused("lora_rank").unwritten().because("LoRA-enabled embeddings"),
                      keras_refused("quantization_config").because("quantized layers, issue #39"),
                      keras_field("tie_weights", &O::tie_weights),
                      keras_field("reverse_dtype", &O::reverse_dtype),
                      keras_field("logit_soft_cap", &O::logit_soft_cap)};
  }
};

class ReversibleEmbeddingImpl : public LayerImpl {
 public:
  ReversibleEmbeddingImpl(std::int64_t input_dim, std::int64_t output_dim, ReversibleEmbeddingOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  std::vector<std::string> call_argument_names() const override { return {"reverse"}; }

  std::int64_t input_dim, output_dim;
  ReversibleEmbeddingOptions options;
  Variable embeddings;
  Variable reverse_embeddings;  // only with tie_weights=false
};

class ReversibleEmbedding : public Layer {
 public:
  ReversibleEmbedding(std::int64_t input_dim, std::int64_t output_dim, ReversibleEmbeddingOptions options = {});
  using Layer::operator();
  // The reverse call: vectors (..., output_dim) -> scores (..., input_dim).
  KerasTensor reverse(const KerasTensor& x) const;
};

}  // namespace strata::layers
