// Embedding: integer token ids (batch, ...) -> rows of a trainable (input_dim, output_dim)
// table. With mask_zero, id 0 is padding: the output carries a mask that recurrent
// layers downstream honour. An id outside [0, input_dim) throws ValueError naming the layer.
// In int8 mode (a file's QuantizedDTypePolicy), as Keras's int8 Embedding: the table is
// int8 and each looked-up row is divided by its row's embeddings_scale.
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"
#include "layers/core/int4_quantization.h"

namespace strata::layers {

struct EmbeddingOptions {  // Keras signature order
  Initializer embeddings_initializer = "uniform";
  Regularizer embeddings_regularizer;
  Regularizer activity_regularizer;
  Constraint embeddings_constraint;
  bool mask_zero = false;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // Keras 2's input_length only fixed the input shape (the InputLayer says it too): ignored.
  static constexpr auto keras_fields() {
    using O = EmbeddingOptions;
    return std::tuple{keras_field("embeddings_initializer", &O::embeddings_initializer),
                      keras_field("embeddings_regularizer", &O::embeddings_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("embeddings_constraint", &O::embeddings_constraint),
                      keras_field("mask_zero", &O::mask_zero),
                      keras_refused("lora_rank").unwritten().because("LoRA-enabled embeddings"),
                      keras_refused("quantization_config").unwritten().because("quantized layers, issue #39"),
                      keras_unmodeled("input_length").unwritten()};  // Keras 2's; Keras 3 ignores it too
  }
};

class EmbeddingImpl : public LayerImpl {
 public:
  EmbeddingImpl(std::int64_t input_dim, std::int64_t output_dim, EmbeddingOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  // int8, and Keras's sub-channel int4 ("int4/<block>", layers/core/int4_quantization.h)
  // as its files hold it (Strata's quantize() makes int8 only).
  bool supports_quantization_mode(const std::string& mode) const override {
    return mode == "int8" || int4_block_of(mode).has_value();
  }
  // Keras's Embedding.quantize("int8"): each row quantized (AbsMaxQuantizer over axis -1),
  // stored as embeddings (int8, not trainable) and embeddings_scale (input_dim,).
  void quantize(const std::string& mode) override;

  std::int64_t input_dim, output_dim;
  EmbeddingOptions options;
  Variable embeddings;
  Variable embeddings_scale;  // int8 mode only: Keras's per-row scale
  Int4Weights int4;           // int4 modes only: instead of embeddings
};

class Embedding : public Layer {
 public:
  Embedding(std::int64_t input_dim, std::int64_t output_dim, EmbeddingOptions options = {});
};

// Masking: steps whose features all equal mask_value are masked (and zeroed).
struct MaskingOptions {
  double mask_value = 0.0;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{keras_field("mask_value", &MaskingOptions::mask_value)}; }
};

class MaskingImpl : public LayerImpl {
 public:
  explicit MaskingImpl(MaskingOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  MaskingOptions options;
};

class Masking : public Layer {
 public:
  explicit Masking(MaskingOptions options = {});
  explicit Masking(double mask_value) : Masking(MaskingOptions{.mask_value = mask_value}) {}
};

}  // namespace strata::layers
