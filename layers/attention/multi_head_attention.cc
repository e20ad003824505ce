#include "layers/attention/multi_head_attention.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/rng.h"
#include "layers/attention/heads_attention.h"

namespace strata::layers {

namespace {

// A projection sublayer in the layer's dtype policy (as Keras passes it on), built at once
// on `input`.
std::shared_ptr<EinsumDenseImpl> projection(const std::string& name, const std::string& equation, Shape output_shape,
                                            const char* bias_axes, const MultiHeadAttentionOptions& o,
                                            const std::string& policy, const TensorSpec& input,
                                            const std::string& activation = "") {
  auto impl = std::make_shared<EinsumDenseImpl>(
      equation, std::move(output_shape),
      EinsumDenseOptions{.activation = activation,
                         .bias_axes = o.use_bias ? std::optional<std::string>(bias_axes) : std::nullopt,
                         .kernel_initializer = o.kernel_initializer,
                         .bias_initializer = o.bias_initializer,
                         .kernel_regularizer = o.kernel_regularizer,
                         .bias_regularizer = o.bias_regularizer,
                         .kernel_constraint = o.kernel_constraint,
                         .bias_constraint = o.bias_constraint,
                         .name = name});
  impl->dtype_policy = policy;
  impl->build({input});
  impl->built = true;
  return impl;
}

// x with its axes in `perm`'s order; x itself when that is the order it has.
Output transposed(Output x, const std::vector<std::int64_t>& perm) {
  for (std::size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<std::int64_t>(i)) return ops::transpose(x, perm);
  }
  return x;
}

}  // namespace

MultiHeadAttentionImpl::MultiHeadAttentionImpl(std::int64_t num_heads_, std::int64_t key_dim_,
                                               MultiHeadAttentionOptions o)
    : LayerImpl("MultiHeadAttention", o.name),
      num_heads(num_heads_),
      key_dim(key_dim_),
      options(std::move(o)),
      seed(options.seed ? *options.seed : next_seed()) {
  check_positive_argument("num_heads", num_heads);
  check_positive_argument("key_dim", key_dim);
  if (options.value_dim) check_positive_argument("value_dim", *options.value_dim);
  if (options.output_shape && options.output_shape->rank() == 0) options.output_shape.reset();  // Keras: [] is None
  check_dropout_rate(options.dropout);
  if (options.sliding_window && *options.sliding_window <= 0) {
    throw ValueError("`sliding_window` must be `None` or a positive integer. Received: sliding_window=" +
                     std::to_string(*options.sliding_window));
  }
  if (options.output_shape && options.output_shape->rank() != 1) {
    throw NotImplementedError("MultiHeadAttention output_shape " + options.output_shape->to_string() +
                              ": outputs of more than one axis are not supported");
  }
}

std::vector<std::string> MultiHeadAttentionImpl::call_argument_names() const { return heads_call_argument_names(); }

std::vector<TensorArgument> MultiHeadAttentionImpl::tensor_arguments() const { return heads_tensor_arguments(); }

std::vector<Layer> MultiHeadAttentionImpl::sublayers() const {
  if (!query_dense) return {};
  std::vector<Layer> out{Layer(query_dense), Layer(key_dense)};
  if (gate_dense) out.emplace_back(gate_dense);  // Keras builds it after the key's
  out.emplace_back(value_dense);
  out.emplace_back(output_dense);
  return out;
}

void MultiHeadAttentionImpl::build(const std::vector<TensorSpec>& all) {
  const std::vector<TensorSpec> inputs = split_call_inputs(*this, current_arguments, all).inputs;
  const TensorSpec& query = inputs[0];
  const TensorSpec& value = inputs[1];
  const TensorSpec& key = inputs.size() > 2 ? inputs[2] : value;
  const int rank = query.shape.rank();
  for (const auto& in : inputs) {
    if (in.shape.rank() < 3 || in.shape.rank() != rank) {
      throw NotImplementedError("inputs of one rank, at least 3 ((batch, T, dim)), are supported, got " +
                                in.shape.to_string() + " beside the query's " + query.shape.to_string());
    }
  }
  // Keras resolves a negative axis against its projections' rank (rank + 1, the heads
  // added): -2 is the last axis before the features.
  std::vector<int> attended, others;
  if (options.attention_axes) {
    for (std::int64_t a : options.attention_axes->values) {
      const std::int64_t axis = a >= 0 ? a : rank + a;
      if (axis < 1 || axis > rank - 2 || (!attended.empty() && axis <= attended.back())) {
        throw NotImplementedError("attention_axes " + std::to_string(a) + " of " +
                                  Shape(options.attention_axes->values).to_string() + " for inputs of shape " +
                                  query.shape.to_string() +
                                  ": axes between the batch and the features, in increasing order, are supported");
      }
      attended.push_back(static_cast<int>(axis));
    }
  } else {
    for (int axis = 1; axis <= rank - 2; ++axis) attended.push_back(axis);
  }
  for (int axis = 1; axis <= rank - 2; ++axis) {
    if (std::find(attended.begin(), attended.end(), axis) == attended.end()) others.push_back(axis);
  }
  for (int axis = 1; axis < rank - 1; ++axis) {
    if (value.shape[axis] != kUnknownDim && key.shape[axis] != kUnknownDim && value.shape[axis] != key.shape[axis]) {
      throw ShapeError("All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                       "value_shape=" + value.shape.to_string() + " and key_shape=" + key.shape.to_string());
    }
  }
  for (int axis : others) {
    const std::int64_t q = query.shape[axis], v = value.shape[axis];
    if (q != kUnknownDim && v != kUnknownDim && q != v) {
      throw ShapeError("the query " + query.shape.to_string() + " and the value " + value.shape.to_string() +
                       " differ at axis " + std::to_string(axis) + ", which is not attended over (attention_axes " +
                       Shape(std::vector<std::int64_t>(attended.begin(), attended.end())).to_string() + ")");
    }
  }
  // The projections see (batch · others, attended, dim).
  auto attended_size = [&](const Shape& s) {
    std::int64_t n = 1;
    for (int axis : attended) n = (s[axis] == kUnknownDim || n == kUnknownDim) ? kUnknownDim : n * s[axis];
    return n;
  };
  auto flat = [&](const TensorSpec& t) {
    return TensorSpec{Shape{kUnknownDim, attended_size(t.shape), t.shape[rank - 1]}, t.dtype};
  };
  const std::int64_t value_dim = options.value_dim.value_or(key_dim);
  const std::int64_t out_dim = options.output_shape ? (*options.output_shape)[0] : query.shape[rank - 1];
  // Sublayer names carry this layer's, so their weights are "<name>/query/kernel" as in
  // Keras. All four are made before any is kept: a failed build leaves none.
  const std::string projects = "abc,cde->abde";
  const Shape heads_shape{kUnknownDim, num_heads, key_dim}, values_shape{kUnknownDim, num_heads, value_dim};
  auto q = projection(name + "/query", projects, heads_shape, "de", options, dtype_policy, flat(query));
  auto k = projection(name + "/key", projects, heads_shape, "de", options, dtype_policy, flat(key));
  std::shared_ptr<EinsumDenseImpl> g;
  if (options.use_gate) {
    g = projection(name + "/gate", projects, values_shape, "de", options, dtype_policy, flat(query), "sigmoid");
  }
  auto v = projection(name + "/value", projects, values_shape, "de", options, dtype_policy, flat(value));
  auto o = projection(name + "/attention_output", "abcd,cde->abe", Shape{kUnknownDim, out_dim}, "e", options,
                      dtype_policy,
                      TensorSpec{Shape{kUnknownDim, attended_size(query.shape), num_heads, value_dim}, DType::float32});
  query_dense = std::move(q);
  key_dense = std::move(k);
  gate_dense = std::move(g);
  value_dense = std::move(v);
  output_dense = std::move(o);
  attended_axes = attended;
  other_axes = others;
  options.attention_axes = Axes(std::vector<std::int64_t>(attended.begin(), attended.end()));  // as Keras writes it
}

Output MultiHeadAttentionImpl::flattened(Output x) const {
  const int rank = x.shape().rank();
  if (rank == 3) return x;
  std::vector<std::int64_t> perm{0};
  for (int axis : other_axes) perm.push_back(axis);
  for (int axis : attended_axes) perm.push_back(axis);
  perm.push_back(rank - 1);
  x = transposed(x, perm);
  if (!other_axes.empty()) x = ops::merge_axes(x, 0, 1 + static_cast<int>(other_axes.size()));
  if (attended_axes.size() > 1) x = ops::merge_axes(x, 1, static_cast<int>(attended_axes.size()));
  return x;
}

// (batch · others, T, out) back to the query's layout, or the scores (batch · others,
// heads, T, S) to Keras's (batch, <others>, heads, <T axes>, <S axes>).
Output MultiHeadAttentionImpl::unflattened(Output y, Output query, Output value, bool scores) const {
  const int rank = query.shape().rank();
  if (rank == 3) return y;
  // dims as fed: ops::dim_from(axis, 1) is the query's, (axis, 2) the value's
  std::vector<std::int64_t> dims{ops::dim_from(0, 1)};
  for (int axis : other_axes) dims.push_back(ops::dim_from(axis, 1));
  if (scores) dims.push_back(num_heads);
  for (int axis : attended_axes) dims.push_back(ops::dim_from(axis, 1));
  if (scores) {
    for (int axis : attended_axes) dims.push_back(ops::dim_from(axis, 2));
    return ops::reshape(y, dims, {query, value});
  }
  dims.push_back(y.shape()[2]);
  y = ops::reshape(y, dims, {query, value});
  std::vector<std::int64_t> order{0};  // where each of the query's axes is in y
  for (int axis : other_axes) order.push_back(axis);
  for (int axis : attended_axes) order.push_back(axis);
  order.push_back(rank - 1);
  std::vector<std::int64_t> perm(order.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    perm[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  }
  return transposed(y, perm);
}

// attention_mask over inputs of rank above 3, as Keras's _masked_softmax takes it: expanded
// at the heads' axis to the scores' rank, broadcast to them, then flattened as they are.
Output MultiHeadAttentionImpl::visible_over_axes(Graph& graph, const CallInputs<Output>& call, Output scores,
                                                 Output query, Output value) const {
  const Output* m = call.find("attention_mask");
  if (!m) return {};
  const Output keras_scores = unflattened(scores, query, value, true);
  const int k = static_cast<int>(attended_axes.size());
  const int scores_rank = keras_scores.shape().rank();
  Output mask = mask_as_visible(graph, *m);
  if (mask.shape().rank() < 2 * k || mask.shape().rank() > scores_rank) {
    throw ShapeError("attention_mask " + m->shape().to_string() + " for scores " + keras_scores.shape().to_string() +
                     ": (batch, <other axes>, <query's attended axes>, <value's attended axes>) is expected");
  }
  while (mask.shape().rank() < scores_rank) mask = ops::expand_dims(mask, -2 * k - 1);
  const Shape& s = mask.shape();
  const Shape& want = keras_scores.shape();
  for (int i = 0; i < scores_rank; ++i) {
    if (s[i] != 1 && s[i] != kUnknownDim && want[i] != kUnknownDim && s[i] != want[i]) {
      throw ShapeError("attention_mask " + m->shape().to_string() + " does not broadcast to the scores " +
                       want.to_string() + " (batch, <other axes>, heads, <query's attended axes>, <value's attended "
                       "axes>) at axis " + std::to_string(i));
    }
  }
  mask = ops::broadcast_like(mask, keras_scores);
  const int others = static_cast<int>(other_axes.size());
  if (others > 0) mask = ops::merge_axes(mask, 0, 1 + others);
  if (k > 1) mask = ops::merge_axes(ops::merge_axes(mask, 2, k), 3, k);
  return mask;
}

std::vector<Output> MultiHeadAttentionImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> MultiHeadAttentionImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                                        const std::vector<Output>& masks) {
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  const std::vector<Output>& inputs = call.inputs;
  const Output query_in = inputs[0], value_in = inputs[1];
  const Output key_in = inputs.size() > 2 ? inputs[2] : value_in;
  const bool flat = query_in.shape().rank() == 3;
  if (!flat) {
    auto refuse = [&](const std::string& what) {
      throw NotImplementedError(what + " over inputs of rank above 3 (" + query_in.shape().to_string() +
                                ") is not supported");
    };
    // Keras's projections see the batch alone first; these are flattened into it (the
    // activity penalties divide by the query's batch, as Keras's).
    for (const Output& m : masks) {
      if (m.valid()) refuse("an input's mask");
    }
    for (const char* name : {"query_mask", "value_mask", "key_mask"}) {
      if (call.find(name)) refuse(name);
    }
    if (argument("use_causal_mask")) refuse("use_causal_mask");
    if (options.sliding_window) refuse("sliding_window");  // Keras's band reads axis 1 only
  }
  const Output gate = gate_dense ? gate_dense->call(graph, {flattened(query_in)})[0] : Output{};
  const Output q = query_dense->call(graph, {flattened(query_in)})[0];  // (batch, T, heads, key_dim)
  const Output k = key_dense->call(graph, {flattened(key_in)})[0];      // (batch, S, heads, key_dim)
  const Output v = value_dense->call(graph, {flattened(value_in)})[0];  // (batch, S, heads, value_dim)
  const Output scores = heads_scores(q, k, key_dim);                    // (batch, heads, T, S)
  // Keras 3.15.1's call overwrites query_mask with the query's own mask.
  const Output visible =
      flat ? heads_visible_mask(graph, *this, call, masks, scores,
                                {.num_heads = num_heads, .query_mask_argument = false,
                                 .sliding_window = options.sliding_window})
           : visible_over_axes(graph, call, scores, query_in, value_in);
  // Keras's Softmax-layer path (hidden rows' weights zero) with dropout or returned
  // scores, and always over several axes; its dot_product_attention path (equal weights)
  // otherwise.
  const bool return_scores = argument("return_attention_scores");
  const HeadsAttention attention =
      heads_attend(graph, scores, visible, v,
                   {.rate = options.dropout, .seed = seed, .stream = static_cast<std::uint64_t>(current_call)},
                   return_scores || options.dropout > 0.0 || !flat);
  const Output attended = gate.valid() ? ops::mul(attention.attended, gate) : attention.attended;
  const Output projected = output_dense->call(graph, {attended})[0];
  std::vector<Output> projections{q, k, v, projected};
  if (gate.valid()) projections.insert(projections.begin() + 2, gate);
  add_projection_activity_penalties(graph, *this, projections, query_in);
  Output out = unflattened(projected, query_in, value_in, false);
  if (return_scores) return {out, unflattened(attention.weights, query_in, value_in, true)};
  return {out};
}

std::vector<Output> MultiHeadAttentionImpl::compute_mask(Graph&, const std::vector<Output>&,
                                                         const std::vector<Output>& masks) {
  if (masks.empty() || !masks[0].valid()) return {};
  return {masks[0]};
}

MultiHeadAttention::MultiHeadAttention(std::int64_t num_heads, std::int64_t key_dim, MultiHeadAttentionOptions options)
    : Layer(std::make_shared<MultiHeadAttentionImpl>(num_heads, key_dim, std::move(options))) {}

std::vector<KerasTensor> MultiHeadAttention::operator()(const std::vector<KerasTensor>& inputs,
                                                        MultiHeadAttentionCall call) const {
  return call_heads_attention(*this, inputs, call);
}

std::vector<KerasTensor> call_heads_attention(const Layer& layer, const std::vector<KerasTensor>& inputs,
                                              const MultiHeadAttentionCall& call) {
  CallArguments arguments;
  if (call.return_attention_scores) arguments["return_attention_scores"] = true;
  if (call.use_causal_mask) arguments["use_causal_mask"] = true;
  std::vector<KerasTensor> all = inputs;
  // In the order of tensor_arguments().
  for (const auto& [name, tensor] : {std::pair<const char*, const KerasTensor*>{"query_mask", &call.query_mask},
                                     {"value_mask", &call.value_mask},
                                     {"key_mask", &call.key_mask},
                                     {"attention_mask", &call.attention_mask}}) {
    if (!tensor->defined()) continue;
    all.push_back(*tensor);
    arguments[name] = true;
  }
  return layer.call_with(all, arguments);
}

namespace {
std::vector<KerasClass::VarGroup> multi_head_projection_vars(const LayerImpl& impl) {
  const auto& m = static_cast<const MultiHeadAttentionImpl&>(impl);
  if (!m.query_dense) return {};
  // Keras 3 files keep the projections under their attribute names.
  std::vector<KerasClass::VarGroup> groups{{"query_dense/", {}, Layer(m.query_dense)},
                                           {"key_dense/", {}, Layer(m.key_dense)},
                                           {"value_dense/", {}, Layer(m.value_dense)},
                                           {"output_dense/", {}, Layer(m.output_dense)}};
  if (m.gate_dense) groups.push_back({"_gate_dense/", {}, Layer(m.gate_dense)});  // no property: its attribute's name
  return groups;
}

const bool multi_head_attention_registered = register_keras_class(
    describe_layer<MultiHeadAttention>("MultiHeadAttention", &MultiHeadAttentionImpl::options,
                                       keras_field("num_heads", &MultiHeadAttentionImpl::num_heads).at_least(1),
                                       keras_field("key_dim", &MultiHeadAttentionImpl::key_dim).at_least(1))
        .vars(multi_head_projection_vars));
}  // namespace

}  // namespace strata::layers
