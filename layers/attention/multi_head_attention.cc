#include "layers/attention/multi_head_attention.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/causal_mask.h"
#include "core/rng.h"

namespace strata::layers {

namespace {

// What Keras's masked Softmax puts in place of a hidden score (Attention instead
// subtracts 1e9 from it, layers/attention/attention.cc).
constexpr float kHiddenScoreValue = -1.0e9f;

// A projection sublayer, built at once on `input`.
std::shared_ptr<EinsumDenseImpl> projection(const std::string& name, const std::string& equation, Shape output_shape,
                                            const char* bias_axes, const MultiHeadAttentionOptions& o,
                                            const TensorSpec& input) {
  auto impl = std::make_shared<EinsumDenseImpl>(
      equation, std::move(output_shape),
      EinsumDenseOptions{.bias_axes = o.use_bias ? std::optional<std::string>(bias_axes) : std::nullopt,
                         .kernel_initializer = o.kernel_initializer,
                         .bias_initializer = o.bias_initializer,
                         .name = name});
  impl->build({input});
  impl->built = true;
  return impl;
}

// (batch, T, heads, dim) -> (batch, heads, T, dim), and back.
Output heads_first(Output x) { return ops::transpose(x, {0, 2, 1, 3}); }

}  // namespace

MultiHeadAttentionImpl::MultiHeadAttentionImpl(std::int64_t num_heads_, std::int64_t key_dim_,
                                               MultiHeadAttentionOptions o)
    : LayerImpl("MultiHeadAttention", o.name),
      num_heads(num_heads_),
      key_dim(key_dim_),
      options(std::move(o)),
      seed(options.seed ? *options.seed : next_seed()) {
  auto positive = [](const char* argument, std::int64_t value) {
    if (value <= 0) {
      throw ValueError(std::string("Invalid value for argument `") + argument +
                       "`. Expected a positive integer. Received: " + argument + "=" + std::to_string(value));
    }
  };
  positive("num_heads", num_heads);
  positive("key_dim", key_dim);
  if (options.value_dim) positive("value_dim", *options.value_dim);
  if (options.output_shape && options.output_shape->rank() == 0) options.output_shape.reset();  // Keras: [] is None
  if (options.dropout < 0.0 || options.dropout >= 1.0) {
    throw ValueError("dropout must be in [0, 1), got " + std::to_string(options.dropout));
  }
  if (options.output_shape && options.output_shape->rank() != 1) {
    throw NotImplementedError("MultiHeadAttention output_shape " + options.output_shape->to_string() +
                              ": outputs of more than one axis are not supported");
  }
}

std::vector<std::string> MultiHeadAttentionImpl::call_argument_names() const {
  return {"return_attention_scores", "use_causal_mask", "query_mask", "value_mask", "key_mask", "attention_mask"};
}

std::vector<TensorArgument> MultiHeadAttentionImpl::tensor_arguments() const {
  return {{"query_mask", "query_mask"}, {"value_mask", "value_mask"}, {"key_mask", "key_mask"},
          {"attention_mask", "attention_mask"}};
}

std::vector<Layer> MultiHeadAttentionImpl::sublayers() const {
  if (!query_dense) return {};
  return {Layer(query_dense), Layer(key_dense), Layer(value_dense), Layer(output_dense)};
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
    if (query.shape[axis] != kUnknownDim && value.shape[axis] != kUnknownDim && query.shape[axis] != value.shape[axis]) {
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
  auto q = projection(name + "/query", projects, Shape{kUnknownDim, num_heads, key_dim}, "de", options, flat(query));
  auto k = projection(name + "/key", projects, Shape{kUnknownDim, num_heads, key_dim}, "de", options, flat(key));
  auto v = projection(name + "/value", projects, Shape{kUnknownDim, num_heads, value_dim}, "de", options, flat(value));
  auto o = projection(name + "/attention_output", "abcd,cde->abe", Shape{kUnknownDim, out_dim}, "e", options,
                      TensorSpec{Shape{kUnknownDim, attended_size(query.shape), num_heads, value_dim}, DType::float32});
  query_dense = std::move(q);
  key_dense = std::move(k);
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
  bool moved = false;
  for (std::size_t i = 0; i < perm.size(); ++i) moved = moved || perm[i] != static_cast<std::int64_t>(i);
  if (moved) x = ops::transpose(x, perm);
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
  for (std::size_t i = 0; i < order.size(); ++i) perm[static_cast<std::size_t>(order[i])] = static_cast<std::int64_t>(i);
  bool moved = false;
  for (std::size_t i = 0; i < perm.size(); ++i) moved = moved || perm[i] != static_cast<std::int64_t>(i);
  return moved ? ops::transpose(y, perm) : y;
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

Output MultiHeadAttentionImpl::visible_mask(Graph& graph, const CallInputs<Output>& call,
                                            const std::vector<Output>& masks, Output scores) const {
  const auto& inputs = call.inputs;
  auto implicit = [&](std::size_t i) { return i < masks.size() && i < inputs.size() ? masks[i] : Output{}; };
  const Shape& query = inputs[0].shape();
  const Shape& value = inputs[1].shape();
  const Shape sequence{value[0], value[1]};  // (batch, S)
  // A mask passed with the call, else the input's own (Keras fills {name}_mask from the
  // input's mask only where none was passed). Keras 3.15.1's call then replaces
  // query_mask by the query's own mask, so a query_mask passed alone does nothing.
  auto given = [&](const char* name, std::size_t input) -> Output {
    if (const Output* m = call.find(name)) {
      check_mask_shape(name, m->shape(), sequence, "(batch, S)");
      return mask_as_visible(graph, *m);
    }
    return implicit(input);
  };
  Output query_mask = implicit(0);
  Output value_mask = given("value_mask", 1);
  Output key_mask = given("key_mask", 2);
  // 1 where query t may attend to key s: the query's mask as (batch, T, 1), the value's
  // and the key's as (batch, 1, S), the causal mask (T, S); one shared by the heads.
  Output visible;
  auto both = [&](Output m) { visible = visible.valid() ? ops::mul(visible, m) : m; };
  if (query_mask.valid()) both(ops::expand_dims(query_mask, -1));
  if (value_mask.valid()) both(ops::expand_dims(value_mask, -2));
  if (key_mask.valid()) both(ops::expand_dims(key_mask, -2));
  if (argument("use_causal_mask")) both(ops::causal_mask(scores));
  if (const Output* m = call.find("attention_mask")) {
    const Shape& s = m->shape();
    const std::int64_t T = query[1], S = value[1];
    if (s.rank() == 2) {
      check_mask_shape("attention_mask", s, Shape{T, S}, "(T, S)");
    } else if (s.rank() == 4) {
      check_mask_shape("attention_mask", s, Shape{query[0], num_heads, T, S}, "(batch, num_heads, T, S)");
    } else {
      check_mask_shape("attention_mask", s, Shape{query[0], T, S}, "(batch, T, S)");
    }
    // Keras: attention_mask & auto_mask, broadcast as NumPy does.
    Output given_mask = mask_as_visible(graph, *m);
    visible = visible.valid() ? ops::mul(given_mask, visible) : given_mask;
  }
  // Keras expands the mask at the heads' axis until it has the scores' rank.
  while (visible.valid() && visible.shape().rank() < 4) visible = ops::expand_dims(visible, -3);
  return visible;
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
    for (const Output& m : masks) {
      if (m.valid()) refuse("an input's mask");
    }
    for (const char* name : {"query_mask", "value_mask", "key_mask"}) {
      if (call.find(name)) refuse(name);
    }
    if (argument("use_causal_mask")) refuse("use_causal_mask");
  }
  Output q = heads_first(query_dense->call(graph, {flattened(query_in)})[0]);  // (batch, heads, T, key_dim)
  Output k = heads_first(key_dense->call(graph, {flattened(key_in)})[0]);      // (batch, heads, S, key_dim)
  Output v = heads_first(value_dense->call(graph, {flattened(value_in)})[0]);  // (batch, heads, S, value_dim)
  q = ops::mul(q, static_cast<float>(1.0 / std::sqrt(static_cast<double>(key_dim))));
  Output scores = ops::batch_matmul(q, k, false, true);  // (batch, heads, T, S)

  const Output visible =
      flat ? visible_mask(graph, call, masks, scores) : visible_over_axes(graph, call, scores, query_in, value_in);
  if (visible.valid()) scores = ops::where(visible, scores, ops::constant(graph, kHiddenScoreValue));
  Output weights = ops::softmax(scores, -1);
  // Keras computes these two ways: with dropout or returned scores, through its Softmax
  // layer, which gives a row with every key hidden (a hidden query) zeros; otherwise
  // through dot_product_attention, which gives it equal weights. Either way the row's
  // output is what Keras's is.
  const bool return_scores = argument("return_attention_scores");
  // Over several axes Keras always takes the Softmax layer's way.
  if (visible.valid() && (return_scores || options.dropout > 0.0 || !flat)) {
    weights = ops::where(visible, weights, ops::constant(graph, 0.f));
  }
  Output dropped = weights;
  if (options.dropout > 0.0) {
    dropped = ops::dropout(weights, static_cast<float>(options.dropout), seed, static_cast<std::uint64_t>(current_call));
  }
  Output attended = heads_first(ops::batch_matmul(dropped, v));  // (batch, T, heads, value_dim)
  Output out = unflattened(output_dense->call(graph, {attended})[0], query_in, value_in, false);
  if (return_scores) return {out, unflattened(weights, query_in, value_in, true)};
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
  return call_with(all, arguments);
}

namespace {
std::vector<KerasClass::VarGroup> projection_vars(const LayerImpl& impl) {
  const auto& m = static_cast<const MultiHeadAttentionImpl&>(impl);
  if (!m.query_dense) return {};
  // Keras 3 files keep the projections under their attribute names.
  return {{"query_dense/", {}, Layer(m.query_dense)},
          {"key_dense/", {}, Layer(m.key_dense)},
          {"value_dense/", {}, Layer(m.value_dense)},
          {"output_dense/", {}, Layer(m.output_dense)}};
}

const bool registered = register_keras_class(
    describe_layer<MultiHeadAttention>("MultiHeadAttention", &MultiHeadAttentionImpl::options,
                                       keras_field("num_heads", &MultiHeadAttentionImpl::num_heads).at_least(1),
                                       keras_field("key_dim", &MultiHeadAttentionImpl::key_dim).at_least(1))
        .vars(projection_vars));
}  // namespace

}  // namespace strata::layers
