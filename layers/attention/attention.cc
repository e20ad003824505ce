#include "layers/attention/attention.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/causal_mask.h"
#include "core/rng.h"

namespace strata::layers {

namespace {
// What Keras's Attention subtracts from the scores of hidden keys (float32; 65504 for
// float16); MultiHeadAttention instead puts -1e9 in their place.
constexpr float kHiddenScorePenalty = 1.0e9f;
}  // namespace

AttentionImpl::AttentionImpl(AttentionOptions o, std::string class_name)
    : LayerImpl(std::move(class_name), o.name), options(std::move(o)), seed(options.seed ? *options.seed : next_seed()) {
  if (options.score_mode != "dot" && options.score_mode != "concat") {
    throw ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. Received: score_mode=" +
                     options.score_mode);
  }
  if (options.dropout < 0.0 || options.dropout >= 1.0) {
    throw ValueError("dropout must be in [0, 1), got " + std::to_string(options.dropout));
  }
}

std::vector<std::string> AttentionImpl::call_argument_names() const {
  return {"return_attention_scores", "use_causal_mask", "query_mask", "value_mask"};
}

std::vector<TensorArgument> AttentionImpl::tensor_arguments() const {
  return {{"query_mask", "mask", 0}, {"value_mask", "mask", 1}};
}

Output mask_as_visible(Graph& graph, Output mask) {
  if (mask.dtype() != DType::float32) mask = ops::cast(mask, DType::float32);
  return ops::not_equal(mask, ops::constant(graph, 0.f));
}

void check_mask_shape(const std::string& what, const Shape& mask, const Shape& expected, const std::string& meaning) {
  bool fits = mask.rank() == expected.rank();
  for (int i = 0; fits && i < mask.rank(); ++i) {
    const std::int64_t m = mask[i], e = expected[i];
    fits = m == e || m == 1 || m == kUnknownDim || e == kUnknownDim;
  }
  if (!fits) {
    throw ShapeError(what + " must have the shape " + meaning + " = " + expected.to_string() +
                     " (or 1 where it broadcasts), got " + mask.to_string());
  }
}

namespace {
// shape without its last dim: a (batch, T, dim) tensor's mask, (batch, T).
Shape without_last(const Shape& s) {
  std::vector<std::int64_t> dims;
  for (int i = 0; i + 1 < s.rank(); ++i) dims.push_back(s[i]);
  return Shape(dims);
}
}  // namespace

std::pair<Output, Output> AttentionImpl::call_masks(Graph& graph, const CallInputs<Output>& call,
                                                    const std::vector<Output>& masks) const {
  const Output* query_mask = call.find("query_mask");
  const Output* value_mask = call.find("value_mask");
  // mask=[...] given records both entries, a tensor (true) or None (false).
  if (!current_arguments.count("query_mask") && !current_arguments.count("value_mask")) {
    return {masks.size() > 0 ? masks[0] : Output{}, masks.size() > 1 ? masks[1] : Output{}};  // the inputs'
  }
  // An explicit mask=[...] replaces the inputs' masks, both of them, as in Keras; so does
  // mask=[None, None] (Keras fills mask from the inputs only when mask itself is None).
  std::pair<Output, Output> out;
  if (query_mask) {
    check_mask_shape("query_mask", query_mask->shape(), without_last(call.inputs[0].shape()), "(batch, Tq)");
    out.first = mask_as_visible(graph, *query_mask);
  }
  if (value_mask) {
    check_mask_shape("value_mask", value_mask->shape(), without_last(call.inputs[1].shape()), "(batch, Tv)");
    out.second = mask_as_visible(graph, *value_mask);
  }
  return out;
}

void AttentionImpl::check_inputs(const std::vector<TensorSpec>& inputs) const {
  const Shape& q = inputs[0].shape;
  const Shape& v = inputs[1].shape;
  const Shape& k = inputs.size() > 2 ? inputs[2].shape : v;
  for (const auto& in : inputs) {
    if (in.dtype != DType::float32) throw ValueError("inputs must be float32, got " + to_string(in.dtype));
  }
  if (q.rank() < 3 || v.rank() != q.rank() || k.rank() != q.rank()) {
    throw ShapeError("query, value and key must have one rank, at least 3 ((batch, T, dim)), got query " +
                     q.to_string() + ", value " + v.to_string() + ", key " + k.to_string());
  }
  auto known_differ = [](std::int64_t a, std::int64_t b) { return a != kUnknownDim && b != kUnknownDim && a != b; };
  if (known_differ(q[-1], k[-1])) {
    throw ShapeError("query " + q.to_string() + " and key " + k.to_string() + " must have the same last dim");
  }
  if (known_differ(v[-2], k[-2])) {
    throw ShapeError("value " + v.to_string() + " and key " + k.to_string() + " must have the same length (axis -2)");
  }
}

void AttentionImpl::build(const std::vector<TensorSpec>& all) {
  const auto inputs = split_call_inputs(*this, current_arguments, all).inputs;
  check_inputs(inputs);
  if (options.use_scale) scale = add_weight("scale", Shape{}, "ones");
  if (options.score_mode == "concat") concat_score_weight = add_weight("concat_score_weight", Shape{}, "ones");
}

Output AttentionImpl::scores(Graph& graph, Output query, Output key) {
  if (options.score_mode == "dot") {
    Output s = ops::batch_matmul(query, key, false, true);
    return options.use_scale ? ops::mul(s, graph.variable(scale)) : s;
  }
  // (..., Tq, 1, dim) + (..., 1, Tv, dim): every query against every key.
  Output sum = ops::add(ops::expand_dims(query, -2), ops::expand_dims(key, -3));
  if (options.use_scale) sum = ops::mul(graph.variable(scale), sum);
  return ops::mul(graph.variable(concat_score_weight), ops::reduce_sum(ops::tanh(sum), {-1}));
}

std::vector<Output> AttentionImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> AttentionImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                               const std::vector<Output>& masks) {
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  const std::vector<Output>& inputs = call.inputs;
  std::vector<TensorSpec> specs;
  for (const auto& in : inputs) specs.push_back(in.spec());
  check_inputs(specs);
  const Output query = inputs[0], value = inputs[1];
  const Output key = inputs.size() > 2 ? inputs[2] : value;
  const auto [query_mask, value_mask] = call_masks(graph, call, masks);

  Output s = scores(graph, query, key);
  // 1 where a query may see a key: the value mask as (batch, 1, Tv), and with a causal
  // mask only keys at or before the query's position.
  Output visible = value_mask.valid() ? ops::expand_dims(value_mask, -2) : Output{};
  if (argument("use_causal_mask")) {
    Output causal = ops::causal_mask(s);
    visible = visible.valid() ? ops::mul(visible, causal) : causal;
  }
  if (visible.valid()) s = ops::sub(s, ops::mul(ops::sub(1.f, visible), kHiddenScorePenalty));
  Output weights = ops::softmax(s, -1);
  if (options.dropout > 0.0) {
    weights = ops::dropout(weights, static_cast<float>(options.dropout), seed, static_cast<std::uint64_t>(current_call));
  }
  Output out = ops::batch_matmul(weights, value);
  if (query_mask.valid()) out = ops::where(ops::expand_dims(query_mask, -1), out, ops::constant(graph, 0.f));
  if (argument("return_attention_scores")) return {out, weights};
  return {out};
}

std::vector<Output> AttentionImpl::compute_mask(Graph& graph, const std::vector<Output>& all,
                                                const std::vector<Output>& masks) {
  // The query's mask: the one passed with the call, else the query input's.
  const Output query_mask = call_masks(graph, split_call_inputs(*this, current_arguments, all), masks).first;
  if (!query_mask.valid()) return {};
  return {query_mask};
}

Attention::Attention(AttentionOptions options) : Layer(std::make_shared<AttentionImpl>(std::move(options))) {}

std::vector<KerasTensor> Attention::operator()(const std::vector<KerasTensor>& inputs, AttentionCall call) const {
  return call_attention(*this, inputs, call);
}

std::vector<KerasTensor> call_attention(const Layer& layer, const std::vector<KerasTensor>& inputs,
                                        const AttentionCall& call) {
  CallArguments arguments;
  if (call.return_attention_scores) arguments["return_attention_scores"] = true;
  if (call.use_causal_mask) arguments["use_causal_mask"] = true;
  std::vector<KerasTensor> all = inputs;
  if (!call.mask.empty()) {
    if (call.mask.size() < 2 || call.mask.size() > 3) {
      throw ValueError(layer.class_name() + " '" + layer.name() +
                       "' accepts mask list of length 2 or 3 ([query_mask, value_mask]), got " +
                       std::to_string(call.mask.size()));
    }
    const char* names[] = {"query_mask", "value_mask"};
    for (int i = 0; i < 2; ++i) {
      const KerasTensor& m = call.mask[static_cast<std::size_t>(i)];
      arguments[names[i]] = m.defined();  // false: given as None
      if (m.defined()) all.push_back(m);
    }
  }
  return layer.call_with(all, arguments);
}

namespace {
const bool attention_registered = register_keras_class(describe_layer<Attention>("Attention", &AttentionImpl::options));
}  // namespace

}  // namespace strata::layers
