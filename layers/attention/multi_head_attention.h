// MultiHeadAttention: keras.layers.MultiHeadAttention on (batch, T, dim) inputs, or of
// higher rank over attention_axes (below). Called on
// [query, value] or [query, value, key] (key defaults to value):
//   q, k, v = the query / key / value projections, EinsumDense "abc,cde->abde":
//             (batch, T, heads, key_dim), (batch, S, heads, key_dim), (batch, S, heads, value_dim);
//   scores  = softmax over S of (q / sqrt(key_dim)) · kᵀ per head, (batch, heads, T, S),
//             hidden where a mask says (below), dropout on them in training;
//   output  = attention_output(scores · v), EinsumDense "abcd,cde->abe" back to the
//             query's dim (or output_shape).
// Masks from the inputs (Embedding(mask_zero), Masking) hide query rows and value/key
// columns, as does use_causal_mask (a key after the query's position); the output carries
// the query's mask. Keras's mask arguments are tensors passed with the call (call_tensors.h):
// value_mask and key_mask (batch, S) replace the inputs' masks; attention_mask
// (batch, T, S), or (T, S), 1 broadcasting, nonzero visible, is combined with all of them
// as Keras's _compute_attention_mask does; query_mask is accepted and, as in Keras 3.15.1
// (whose call overwrites it with the query's own mask), has no effect. Flags:
// return_attention_scores (a second output, the scores) and use_causal_mask.
// Inputs of rank above 3, (batch, a1, ..., an, dim): attention_axes (default all of a1..an)
// are attended jointly, as Keras's softmax over several axes, and the other axes are
// batch-like; attention_mask is (batch, <others>, <query's attended>, <value's attended>),
// or with num_heads after the others, size-1 axes broadcasting; the scores are (batch,
// <others>, heads, <query's attended>, <value's attended>). The other masks and
// use_causal_mask are refused there (Keras's causal mask reads axis 1 only).
//
//   auto y = layers::MultiHeadAttention(2, 16)({q, v}, {.attention_mask = mask})[0];
//
// Weights, as Keras names and orders them:
// query/kernel (dim, heads, key_dim), query/bias (heads, key_dim), key/..., value/...,
// attention_output/kernel (heads, value_dim, out), attention_output/bias (out,).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "layers/attention/attention.h"
#include "layers/axes.h"
#include "layers/core/einsum_dense.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct MultiHeadAttentionOptions {  // Keras signature order (after num_heads, key_dim)
  std::optional<std::int64_t> value_dim;  // default key_dim
  double dropout = 0.0;
  bool use_bias = true;
  std::optional<Shape> output_shape;  // default the query's last dim
  // The axes attended over, between the batch and the features (negative: counted as
  // Keras does, from the features' axis); default all of them. Set when built, as Keras.
  std::optional<Axes> attention_axes;
  // Keras's sliding_window: each query position attends only to key positions within
  // sliding_window - 1 of itself (inputs of rank 3, as use_causal_mask).
  std::optional<std::int64_t> sliding_window;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer bias_initializer = "zeros";
  // Given to the four projections (EinsumDense), as Keras's.
  Regularizer kernel_regularizer;
  Regularizer bias_regularizer;
  Constraint kernel_constraint;
  Constraint bias_constraint;
  // Keras's use_gate: sigmoid(gate(query)), a fifth projection (heads, value_dim), multiplies
  // the attended values before the output projection.
  bool use_gate = false;
  std::optional<std::uint64_t> seed;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  // activity_regularizer (Keras's base Layer key, read by io) applies to each projection's
  // output, as Keras's; flash_attention (a speed hint, not in Keras's config) is accepted.
  static constexpr auto keras_fields() {
    using O = MultiHeadAttentionOptions;
    return std::tuple{keras_field("value_dim", &O::value_dim),
                      keras_field("dropout", &O::dropout),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("use_gate", &O::use_gate),
                      keras_field("output_shape", &O::output_shape, Spelling::bare_single),
                      keras_field("attention_axes", &O::attention_axes),
                      keras_field("sliding_window", &O::sliding_window),
                      keras_unmodeled("flash_attention").unwritten(),
                      // The shapes Keras 3.15 built the layer for: Strata's come from its inputs.
                      keras_unmodeled("query_shape").unwritten(),
                      keras_unmodeled("key_shape").unwritten(),
                      keras_unmodeled("value_shape").unwritten(),
                      keras_refused("softmax_robust_masking", "false").unwritten().because("robust masking"),
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

// The call's arguments, in Keras's order (after query, value, key; training is the
// program's mode). Undefined tensors are None.
struct MultiHeadAttentionCall {
  KerasTensor query_mask;
  KerasTensor value_mask;
  KerasTensor key_mask;
  KerasTensor attention_mask;
  bool return_attention_scores = false;
  bool use_causal_mask = false;
};

class MultiHeadAttentionImpl : public LayerImpl, public TakesTensorArguments {
 public:
  MultiHeadAttentionImpl(std::int64_t num_heads, std::int64_t key_dim, MultiHeadAttentionOptions options);
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
  bool regularizes_own_activity() const override { return true; }

  std::int64_t num_heads, key_dim;
  MultiHeadAttentionOptions options;
  std::uint64_t seed;  // options.seed, or drawn
  // The projections, built with the layer; their weights are "<name>/query/kernel", ...
  std::shared_ptr<EinsumDenseImpl> query_dense, key_dense, gate_dense, value_dense, output_dense;  // gate: use_gate
  // Of inputs of rank above 3 (batch, <other axes>, <attended axes>, dim): the attended
  // axes and the others between the batch and the features, as built.
  std::vector<int> attended_axes, other_axes;

 private:
  // Inputs of rank above 3 are attended as (batch · others, attended, dim): the same
  // product, softmax and projections as for (batch, T, dim), with Keras's weights.
  Output flattened(Output x) const;
  Output unflattened(Output y, Output query, Output value, bool scores) const;
  Output visible_over_axes(Graph& graph, const CallInputs<Output>& call, Output scores, Output query,
                           Output value) const;
};

class MultiHeadAttention : public Layer {
 public:
  MultiHeadAttention(std::int64_t num_heads, std::int64_t key_dim, MultiHeadAttentionOptions options = {});
  using Layer::operator();
  std::vector<KerasTensor> operator()(const std::vector<KerasTensor>& inputs, MultiHeadAttentionCall call) const;
};

// A typed call of MultiHeadAttention or GroupQueryAttention: the masks join the inputs as
// tensor arguments (in the layers' tensor_arguments() order), the flags as Keras names them.
std::vector<KerasTensor> call_heads_attention(const Layer& layer, const std::vector<KerasTensor>& inputs,
                                              const MultiHeadAttentionCall& call);

}  // namespace strata::layers
