#include "layers/core/reversible_embedding.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/sequence_ops.h"
#include "layers/dtype_policy.h"

namespace strata::layers {

ReversibleEmbeddingImpl::ReversibleEmbeddingImpl(std::int64_t input_dim_, std::int64_t output_dim_,
                                                 ReversibleEmbeddingOptions options_)
    : LayerImpl("ReversibleEmbedding", options_.name),
      input_dim(input_dim_),
      output_dim(output_dim_),
      options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  if (input_dim <= 0 || output_dim <= 0) {
    throw ValueError("ReversibleEmbedding: input_dim and output_dim must be positive, got " +
                     std::to_string(input_dim) + " and " + std::to_string(output_dim));
  }
  if (options.reverse_dtype && *options.reverse_dtype != "float32" && *options.reverse_dtype != "bfloat16" &&
      *options.reverse_dtype != "float16") {
    throw NotImplementedError("ReversibleEmbedding '" + name + "': reverse_dtype \"" + *options.reverse_dtype +
                              "\" is not supported (null, float32, bfloat16 or float16)");
  }
  if (options.logit_soft_cap && !(*options.logit_soft_cap > 0.0)) {
    throw ValueError("ReversibleEmbedding '" + name + "': logit_soft_cap must be positive, got " +
                     std::to_string(*options.logit_soft_cap));
  }
}

void ReversibleEmbeddingImpl::build(const std::vector<TensorSpec>&) {
  embeddings = add_weight("embeddings", Shape{input_dim, output_dim}, options.embeddings_initializer,
                          {.regularizer = options.embeddings_regularizer, .constraint = options.embeddings_constraint});
  // Keras gives the untied reverse table the embeddings' initializer and no regularizer.
  if (!options.tie_weights) {
    reverse_embeddings = add_weight("reverse_embeddings", Shape{output_dim, input_dim}, options.embeddings_initializer);
  }
}

std::vector<Output> ReversibleEmbeddingImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const std::string where = "ReversibleEmbedding '" + name + "'";
  if (!argument("reverse")) return {ops::embedding_lookup(graph.variable(embeddings), inputs[0], where)};
  const Output& x = inputs[0];
  const Shape& shape = x.shape();
  if (shape.rank() < 1 || (shape[shape.rank() - 1] != kUnknownDim && shape[shape.rank() - 1] != output_dim)) {
    throw ShapeError(where + ": the reverse call takes vectors of output_dim " + std::to_string(output_dim) +
                     " in the last axis, got " + shape.to_string());
  }
  if (x.dtype() != DType::float32) {
    throw ValueError(where + ": the reverse call takes float32 vectors, got " + to_string(x.dtype()));
  }
  // Keras casts the vectors and the table to reverse_dtype: a bfloat16 or float16 one is
  // emulated, each op's inputs and output rounded to it (core/graph.h, PrecisionScope).
  const ComputePrecision precision =
      options.reverse_dtype ? compute_precision_of(*options.reverse_dtype) : ComputePrecision::float32;
  PrecisionScope scope(graph, precision);
  Output logits = options.tie_weights ? ops::matmul(x, graph.variable(embeddings), false, true)
                                      : ops::matmul(x, graph.variable(reverse_embeddings));
  if (options.logit_soft_cap) {
    const auto cap = static_cast<float>(*options.logit_soft_cap);
    logits = ops::mul(ops::tanh(ops::div(logits, cap)), cap);
  }
  return {graph.rounded(logits, precision)};
}

std::vector<Output> ReversibleEmbeddingImpl::compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                                          const std::vector<Output>&) {
  if (!options.mask_zero || argument("reverse")) return {};
  Output ids = inputs[0].dtype() == DType::float32 ? inputs[0] : ops::cast(inputs[0], DType::float32);
  return {ops::not_equal(ids, ops::constant(graph, 0.f))};
}

ReversibleEmbedding::ReversibleEmbedding(std::int64_t input_dim, std::int64_t output_dim,
                                         ReversibleEmbeddingOptions options)
    : Layer(std::make_shared<ReversibleEmbeddingImpl>(input_dim, output_dim, std::move(options))) {}

KerasTensor ReversibleEmbedding::reverse(const KerasTensor& x) const { return call_with({x}, {{"reverse", true}})[0]; }

namespace {
const bool reversible_embedding_registered = register_keras_class(describe_layer<ReversibleEmbedding>(
    "ReversibleEmbedding", &ReversibleEmbeddingImpl::options,
    keras_field("input_dim", &ReversibleEmbeddingImpl::input_dim).at_least(1),
    keras_field("output_dim", &ReversibleEmbeddingImpl::output_dim).at_least(1)));
}  // namespace

}  // namespace strata::layers
