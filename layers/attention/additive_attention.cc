#include "layers/attention/additive_attention.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

AdditiveAttentionImpl::AdditiveAttentionImpl(AdditiveAttentionOptions o)
    : AttentionImpl({.use_scale = o.use_scale,
                     .score_mode = "dot",
                     .dropout = o.dropout,
                     .seed = o.seed,
                     .name = o.name,
                     .dtype = o.dtype},
                    "AdditiveAttention"),
      additive_options(std::move(o)) {}

void AdditiveAttentionImpl::build(const std::vector<TensorSpec>& all) {
  const auto inputs = split_call_inputs(*this, current_arguments, all).inputs;
  check_inputs(inputs);
  const std::int64_t dim = inputs[0].shape[-1];
  if (dim == kUnknownDim) throw ShapeError("the query's last dim must be known, got " + inputs[0].shape.to_string());
  if (options.use_scale) scale = add_weight("scale", Shape{dim}, "glorot_uniform");
}

Output AdditiveAttentionImpl::scores(Graph& graph, Output query, Output key) {
  // (..., Tq, 1, dim) + (..., 1, Tv, dim): every query against every key.
  Output t = ops::tanh(ops::add(ops::expand_dims(query, -2), ops::expand_dims(key, -3)));
  if (options.use_scale) t = ops::mul(graph.variable(scale), t);
  return ops::reduce_sum(t, {-1});
}

AdditiveAttention::AdditiveAttention(AdditiveAttentionOptions options)
    : Layer(std::make_shared<AdditiveAttentionImpl>(std::move(options))) {}

std::vector<KerasTensor> AdditiveAttention::operator()(const std::vector<KerasTensor>& inputs,
                                                       AttentionCall call) const {
  return call_attention(*this, inputs, call);
}

namespace {
const bool additive_attention_registered = register_keras_class(
    describe_layer<AdditiveAttention>("AdditiveAttention", &AdditiveAttentionImpl::additive_options));
}  // namespace

}  // namespace strata::layers
