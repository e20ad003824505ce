#include "layers/attention/multi_head_attention.h"

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
  for (const auto& in : inputs) {
    if (in.shape.rank() != 3) {
      throw NotImplementedError("inputs of shape (batch, T, dim) are supported, got " + in.shape.to_string() +
                                " (attention over several axes is not)");
    }
  }
  if (value.shape[1] != kUnknownDim && key.shape[1] != kUnknownDim && value.shape[1] != key.shape[1]) {
    throw ShapeError("All dimensions of `value` and `key`, except the last one, must be equal. Received: value_shape=" +
                     value.shape.to_string() + " and key_shape=" + key.shape.to_string());
  }
  const std::int64_t value_dim = options.value_dim.value_or(key_dim);
  const std::int64_t out_dim = options.output_shape ? (*options.output_shape)[0] : query.shape[2];
  // Sublayer names carry this layer's, so their weights are "<name>/query/kernel" as in
  // Keras. All four are made before any is kept: a failed build leaves none.
  const std::string projects = "abc,cde->abde";
  auto q = projection(name + "/query", projects, Shape{kUnknownDim, num_heads, key_dim}, "de", options, query);
  auto k = projection(name + "/key", projects, Shape{kUnknownDim, num_heads, key_dim}, "de", options, key);
  auto v = projection(name + "/value", projects, Shape{kUnknownDim, num_heads, value_dim}, "de", options, value);
  auto o = projection(name + "/attention_output", "abcd,cde->abe", Shape{kUnknownDim, out_dim}, "e", options,
                      TensorSpec{Shape{query.shape[0], query.shape[1], num_heads, value_dim}, DType::float32});
  query_dense = std::move(q);
  key_dense = std::move(k);
  value_dense = std::move(v);
  output_dense = std::move(o);
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
  Output q = heads_first(query_dense->call(graph, {query_in})[0]);  // (batch, heads, T, key_dim)
  Output k = heads_first(key_dense->call(graph, {key_in})[0]);      // (batch, heads, S, key_dim)
  Output v = heads_first(value_dense->call(graph, {value_in})[0]);  // (batch, heads, S, value_dim)
  q = ops::mul(q, static_cast<float>(1.0 / std::sqrt(static_cast<double>(key_dim))));
  Output scores = ops::batch_matmul(q, k, false, true);  // (batch, heads, T, S)

  const Output visible = visible_mask(graph, call, masks, scores);
  if (visible.valid()) scores = ops::where(visible, scores, ops::constant(graph, kHiddenScoreValue));
  Output weights = ops::softmax(scores, -1);
  // Keras computes these two ways: with dropout or returned scores, through its Softmax
  // layer, which gives a row with every key hidden (a hidden query) zeros; otherwise
  // through dot_product_attention, which gives it equal weights. Either way the row's
  // output is what Keras's is.
  const bool return_scores = argument("return_attention_scores");
  if (visible.valid() && (return_scores || options.dropout > 0.0)) {
    weights = ops::where(visible, weights, ops::constant(graph, 0.f));
  }
  Output dropped = weights;
  if (options.dropout > 0.0) {
    dropped = ops::dropout(weights, static_cast<float>(options.dropout), seed, static_cast<std::uint64_t>(current_call));
  }
  Output attended = heads_first(ops::batch_matmul(dropped, v));  // (batch, T, heads, value_dim)
  Output out = output_dense->call(graph, {attended})[0];
  if (return_scores) return {out, weights};
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
