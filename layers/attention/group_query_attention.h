// GroupQueryAttention: keras.layers.GroupQueryAttention (Python class GroupedQueryAttention)
// on (batch, T, dim) inputs. Like MultiHeadAttention, but num_query_heads query heads share
// num_key_value_heads key and value heads, each key/value head serving a group of
// num_query_heads / num_key_value_heads consecutive query heads (Keras's ops.repeat):
//   q       = query projection, EinsumDense "bqm,muh->bquh": (batch, T, query_heads, head_dim);
//   k, v    = key / value projections, "bkm,mvh->bkvh": (batch, S, key_value_heads, head_dim),
//             each head repeated for its group;
//   scores  = softmax over S of (q / sqrt(head_dim)) · kᵀ per query head, masked as
//             MultiHeadAttention's are (heads_attention.h), dropout in training;
//   output  = attention_output(scores · v [· gate]), "bquh,uhm->bqm", back to the query's dim.
// With use_gate, a fourth projection of the query, sigmoid(EinsumDense "bqm,muh->bquh"),
// multiplies the attended values before the output projection. Masks: the inputs' own and
// query_mask, value_mask, key_mask, attention_mask passed with the call (GroupQueryAttention
// honours query_mask, which MultiHeadAttention's Keras ignores); flags
// return_attention_scores and use_causal_mask.
//
//   auto y = layers::GroupQueryAttention(16, 8, 2)({x, x}, {.use_causal_mask = true})[0];
//
// Weights, as Keras names and orders them: query/kernel (dim, query_heads, head_dim),
// query/bias (query_heads, head_dim), key/..., [gate/...], value/...,
// attention_output/kernel (query_heads, head_dim, dim), attention_output/bias (dim,).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "layers/attention/multi_head_attention.h"
#include "layers/core/einsum_dense.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct GroupQueryAttentionOptions {  // Keras signature order (after head_dim and the head counts)
  double dropout = 0.0;
  bool use_bias = true;
  // Keras's sliding_window: each query position attends only to key positions within
  // sliding_window - 1 of itself (a symmetric band, with use_causal_mask a causal window).
  std::optional<std::int64_t> sliding_window;
  // Keras's flash_attention (not in its config), a choice of kernel: Strata computes the
  // same attention either way, and true brings Keras's restrictions (no dropout, no
  // returned attention scores: ValueErrors, as Keras's).
  std::optional<bool> flash_attention;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  // Given to the projections (EinsumDense), as Keras's.
  Regularizer kernel_regularizer;
  Regularizer bias_regularizer;
  Constraint kernel_constraint;
  Constraint bias_constraint;
  bool use_gate = false;
  std::optional<std::uint64_t> seed;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // Keras's get_config order. activity_regularizer
  // (Keras's base Layer key, read by io) applies to each projection's output and, as
  // Keras's sets its base Layer's too, to the layer's outputs.
  static constexpr auto keras_fields() {
    using O = GroupQueryAttentionOptions;
    return std::tuple{keras_field("use_bias", &O::use_bias),
                      keras_field("use_gate", &O::use_gate),
                      keras_field("sliding_window", &O::sliding_window),
                      keras_field("dropout", &O::dropout),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("kernel_regularizer", &O::kernel_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_unmodeled("activity_regularizer"),  // LayerImpl's (io reads it)
                      keras_field("kernel_constraint", &O::kernel_constraint),
                      keras_field("bias_constraint", &O::bias_constraint),
                      keras_field("seed", &O::seed)};
  }
};

// The call's arguments, in Keras's order: MultiHeadAttention's.
using GroupQueryAttentionCall = MultiHeadAttentionCall;

class GroupQueryAttentionImpl : public LayerImpl, public TakesTensorArguments {
 public:
  GroupQueryAttentionImpl(std::int64_t head_dim, std::int64_t num_query_heads, std::int64_t num_key_value_heads,
                          GroupQueryAttentionOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  bool accepts_input_count(std::size_t n) const override { return n == 2 || n == 3; }
  std::vector<std::string> call_argument_names() const override;
  std::vector<TensorArgument> tensor_arguments() const override;
  std::vector<Layer> sublayers() const override;

  std::int64_t head_dim, num_query_heads, num_key_value_heads;
  GroupQueryAttentionOptions options;
  std::uint64_t seed;  // options.seed, or drawn
  // The projections, built with the layer; their weights are "<name>/query/kernel", ...;
  // gate_dense only with use_gate.
  std::shared_ptr<EinsumDenseImpl> query_dense, key_dense, gate_dense, value_dense, output_dense;
};

class GroupQueryAttention : public Layer {
 public:
  GroupQueryAttention(std::int64_t head_dim, std::int64_t num_query_heads, std::int64_t num_key_value_heads,
                      GroupQueryAttentionOptions options = {});
  using Layer::operator();
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs, GroupQueryAttentionCall call) const;
};

}  // namespace strata::layers
