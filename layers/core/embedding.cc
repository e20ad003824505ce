#include "layers/core/embedding.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/sequence_ops.h"
#include "layers/core/int8_quantization.h"

namespace strata::layers {

EmbeddingImpl::EmbeddingImpl(std::int64_t input_dim_, std::int64_t output_dim_, EmbeddingOptions options_)
    : LayerImpl("Embedding", options_.name), input_dim(input_dim_), output_dim(output_dim_),
      options(std::move(options_)) {
  activity_regularizer = options.activity_regularizer;
  if (input_dim <= 0 || output_dim <= 0) {
    throw ValueError("Embedding: input_dim and output_dim must be positive, got " + std::to_string(input_dim) +
                     " and " + std::to_string(output_dim));
  }
}

void EmbeddingImpl::build(const std::vector<TensorSpec>&) {
  if (const auto block = int4_block_of(quantization_mode)) {  // Keras's int4 build: groups of columns
    const AddFrozenWeight add = [this](const std::string& n, const Shape& s, const std::string& init) {
      return add_weight(n, s, init, false);
    };
    int4.groups_of_rows = false;
    add_int4_kernel(add, int4, "embeddings", input_dim, output_dim);
    add_int4_groups(add, int4, "embeddings", *block);
    return;
  }
  if (quantization_mode == "int8") {  // Keras's int8 build: neither regularizer nor constraint
    embeddings = add_weight("embeddings", Shape{input_dim, output_dim}, "zeros", false);
    embeddings.set_stored_as(Variable::Stored::int8);
    embeddings_scale = add_weight("embeddings_scale", Shape{input_dim}, "ones", false);
    return;
  }
  embeddings = add_weight("embeddings", Shape{input_dim, output_dim}, options.embeddings_initializer,
                          {.regularizer = options.embeddings_regularizer, .constraint = options.embeddings_constraint});
}

std::vector<Output> EmbeddingImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const std::string where = "Embedding '" + name + "'";
  // Keras's int4: the rows taken, then dequantized; the same as the dequantized table's rows.
  if (int4.packed.defined()) return {ops::embedding_lookup(dequantized_int4(graph, int4), inputs[0], where)};
  Output rows = ops::embedding_lookup(graph.variable(embeddings), inputs[0], where);
  if (quantization_mode != "int8") return {rows};
  // Keras: take(embeddings) / expand_dims(take(embeddings_scale), -1).
  Output scales = ops::reshape(graph.variable(embeddings_scale), {input_dim, 1});
  return {ops::div(rows, ops::embedding_lookup(scales, inputs[0], where))};
}

std::vector<Output> EmbeddingImpl::compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                                const std::vector<Output>&) {
  if (!options.mask_zero) return {};
  Output ids = inputs[0].dtype() == DType::float32 ? inputs[0] : ops::cast(inputs[0], DType::float32);
  return {ops::not_equal(ids, ops::constant(graph, 0.f))};
}

void EmbeddingImpl::quantize(const std::string& mode) {
  check_quantizable(*this, mode);
  if (const auto block = int4_block_of(mode)) {  // Keras's quantize("int4"): groups of columns,
    // quantized as the transposed table's groups of rows, transposed back
    const std::vector<float> table = embeddings.value().to(Device{}).to_vector<float>();
    std::vector<float> transposed(table.size());
    for (std::int64_t r = 0; r < input_dim; ++r)
      for (std::int64_t c = 0; c < output_dim; ++c) transposed[static_cast<std::size_t>(c * input_dim + r)] = table[static_cast<std::size_t>(r * output_dim + c)];
    const Int4Quantized t = quantize_grouped_int4(transposed, output_dim, input_dim, *block,
                                                  "Embedding '" + name + "' embeddings");
    const std::int64_t groups = (output_dim + *block - 1) / *block;
    Int4Quantized q;
    q.q.resize(table.size());
    q.scale.resize(static_cast<std::size_t>(input_dim * groups));
    q.zero.resize(q.scale.size());
    for (std::int64_t r = 0; r < input_dim; ++r) {
      for (std::int64_t c = 0; c < output_dim; ++c) q.q[static_cast<std::size_t>(r * output_dim + c)] = t.q[static_cast<std::size_t>(c * input_dim + r)];
      for (std::int64_t g = 0; g < groups; ++g) {
        q.scale[static_cast<std::size_t>(r * groups + g)] = t.scale[static_cast<std::size_t>(g * input_dim + r)];
        q.zero[static_cast<std::size_t>(r * groups + g)] = t.zero[static_cast<std::size_t>(g * input_dim + r)];
      }
    }
    drop_weight_rules(*this, embeddings);
    int4.groups_of_rows = false;
    assign_int4([this](const std::string& n, const Shape& s, const std::string& init) { return add_weight(n, s, init, false); },
                weights, int4, "embeddings", "embeddings", input_dim, output_dim, *block, q, {});
    embeddings = Variable();
    quantization_mode = mode;
    return;
  }
  const Int8Weight q = quantize_weight_int8(embeddings.value(), {1}, "Embedding '" + name + "' embeddings");
  drop_weight_rules(*this, embeddings);
  weights.clear();
  embeddings = add_weight("embeddings", q.values.shape(), "zeros", false);
  embeddings.assign(q.values);
  embeddings.set_stored_as(Variable::Stored::int8);
  embeddings_scale = add_weight("embeddings_scale", Shape{input_dim}, "ones", false);
  embeddings_scale.assign(q.scale.reshaped(Shape{input_dim}));
  quantization_mode = mode;
}

Embedding::Embedding(std::int64_t input_dim, std::int64_t output_dim, EmbeddingOptions options)
    : Layer(std::make_shared<EmbeddingImpl>(input_dim, output_dim, std::move(options))) {}

MaskingImpl::MaskingImpl(MaskingOptions options_) : LayerImpl("Masking", options_.name), options(std::move(options_)) {}

std::vector<Output> MaskingImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  Output keep = ops::reduce_max(ops::not_equal(inputs[0], ops::constant(graph, static_cast<float>(options.mask_value))),
                                {-1}, true);
  return {ops::mul(inputs[0], keep)};
}

std::vector<Output> MaskingImpl::compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                              const std::vector<Output>&) {
  return {ops::reduce_max(
      ops::not_equal(inputs[0], ops::constant(graph, static_cast<float>(options.mask_value))), {-1}, false)};
}

Masking::Masking(MaskingOptions options) : Layer(std::make_shared<MaskingImpl>(std::move(options))) {}

namespace {
const bool embedding_registered = [] {
  register_keras_class(describe_layer<Embedding>("Embedding", &EmbeddingImpl::options,
                                                 keras_field("input_dim", &EmbeddingImpl::input_dim).at_least(1),
                                                 keras_field("output_dim", &EmbeddingImpl::output_dim).at_least(1)));
  register_keras_class(describe_layer<Masking>("Masking", &MaskingImpl::options));
  return true;
}();
}  // namespace

}  // namespace strata::layers
