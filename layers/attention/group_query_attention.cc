#include "layers/attention/group_query_attention.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/rng.h"
#include "layers/attention/heads_attention.h"

namespace strata::layers {

namespace {

// A projection sublayer in the layer's dtype policy (as Keras passes it on), built at once
// on `input`.
std::shared_ptr<EinsumDenseImpl> grouped_projection(const std::string& name, const std::string& equation,
                                                    Shape output_shape, const char* bias_axes, const char* activation,
                                                    const GroupQueryAttentionOptions& o, const std::string& policy,
                                                    const TensorSpec& input) {
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

// Each of x's heads (batch, S, heads, dim) `repeats` times in a row, as Keras's
// ops.repeat(x, repeats, axis=2): (batch, S, heads · repeats, dim).
Output repeat_heads(Output x, std::int64_t repeats) {
  if (repeats == 1) return x;
  const Output one = ops::expand_dims(x, 3);  // (batch, S, heads, 1, dim)
  return ops::merge_axes(ops::concat(std::vector<Output>(static_cast<std::size_t>(repeats), one), 3), 2, 2);
}

}  // namespace

GroupQueryAttentionImpl::GroupQueryAttentionImpl(std::int64_t head_dim_, std::int64_t num_query_heads_,
                                                 std::int64_t num_key_value_heads_, GroupQueryAttentionOptions o)
    : LayerImpl("GroupQueryAttention", o.name.empty() ? default_layer_name("GroupedQueryAttention") : o.name),
      head_dim(head_dim_),
      num_query_heads(num_query_heads_),
      num_key_value_heads(num_key_value_heads_),
      options(std::move(o)),
      seed(options.seed ? *options.seed : next_seed()) {
  check_positive_argument("head_dim", head_dim);
  check_positive_argument("num_query_heads", num_query_heads);
  check_positive_argument("num_key_value_heads", num_key_value_heads);
  if (num_query_heads % num_key_value_heads != 0) {
    throw ValueError("`num_query_heads` must be divisible by `num_key_value_heads`. Received: num_query_heads=" +
                     std::to_string(num_query_heads) + ", num_key_value_heads=" + std::to_string(num_key_value_heads));
  }
  check_dropout_rate(options.dropout);
  if (options.sliding_window && *options.sliding_window <= 0) {
    throw ValueError("`sliding_window` must be `None` or a positive integer. Received: sliding_window=" +
                     std::to_string(*options.sliding_window));
  }
  if (options.flash_attention.value_or(false) && options.dropout > 0.0) {  // Keras's checks
    throw ValueError("Dropout is not supported when flash attention is enabled. Please set dropout to 0.0 to use "
                     "flash attention.");
  }
}

std::vector<std::string> GroupQueryAttentionImpl::call_argument_names() const { return heads_call_argument_names(); }

std::vector<TensorArgument> GroupQueryAttentionImpl::tensor_arguments() const { return heads_tensor_arguments(); }

std::vector<Layer> GroupQueryAttentionImpl::sublayers() const {
  if (!query_dense) return {};
  std::vector<Layer> out{Layer(query_dense), Layer(key_dense)};
  if (gate_dense) out.emplace_back(gate_dense);
  out.emplace_back(value_dense);
  out.emplace_back(output_dense);
  return out;
}

void GroupQueryAttentionImpl::build(const std::vector<TensorSpec>& all) {
  const std::vector<TensorSpec> inputs = split_call_inputs(*this, current_arguments, all).inputs;
  const TensorSpec& query = inputs[0];
  const TensorSpec& value = inputs[1];
  const TensorSpec& key = inputs.size() > 2 ? inputs[2] : value;
  for (const auto& in : inputs) {
    if (in.shape.rank() != 3) {
      throw NotImplementedError("inputs of shape (batch, T, dim) are supported, got " + in.shape.to_string());
    }
  }
  // Keras's compute_output_shape, which every symbolic call runs.
  if (query.shape[2] != value.shape[2]) {
    throw ValueError("The last dimension of `query_shape` and `value_shape` must be equal, but are " +
                     std::to_string(query.shape[2]) + ", " + std::to_string(value.shape[2]) +
                     ". Received: query_shape=" + query.shape.to_string() + ", value_shape=" + value.shape.to_string());
  }
  if (value.shape[1] != kUnknownDim && key.shape[1] != kUnknownDim && value.shape[1] != key.shape[1]) {
    throw ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: value_shape=" +
                     value.shape.to_string() + " and key_shape=" + key.shape.to_string());
  }
  // Built in Keras's order (query, key, gate, value, output), all before any is kept: a
  // failed build leaves none.
  const Shape query_heads{kUnknownDim, num_query_heads, head_dim};
  const Shape key_value_heads{kUnknownDim, num_key_value_heads, head_dim};
  auto q = grouped_projection(name + "/query", "bqm,muh->bquh", query_heads, "uh", "", options, dtype_policy, query);
  auto k = grouped_projection(name + "/key", "bkm,mvh->bkvh", key_value_heads, "vh", "", options, dtype_policy, key);
  std::shared_ptr<EinsumDenseImpl> g;
  if (options.use_gate)
    g = grouped_projection(name + "/gate", "bqm,muh->bquh", query_heads, "uh", "sigmoid", options, dtype_policy, query);
  auto v = grouped_projection(name + "/value", "bkm,mvh->bkvh", key_value_heads, "vh", "", options, dtype_policy, value);
  const TensorSpec heads_output{Shape{kUnknownDim, kUnknownDim, num_query_heads, head_dim}, DType::float32};
  auto o = grouped_projection(name + "/attention_output", "bquh,uhm->bqm", Shape{kUnknownDim, query.shape[2]}, "m", "",
                              options, dtype_policy, heads_output);
  query_dense = std::move(q);
  key_dense = std::move(k);
  gate_dense = std::move(g);
  value_dense = std::move(v);
  output_dense = std::move(o);
}

std::vector<Output> GroupQueryAttentionImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> GroupQueryAttentionImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                                         const std::vector<Output>& masks) {
  const CallInputs<Output> call = split_call_inputs(*this, current_arguments, all);
  const std::vector<Output>& inputs = call.inputs;
  const Output query_in = inputs[0], value_in = inputs[1];
  const Output key_in = inputs.size() > 2 ? inputs[2] : value_in;
  const std::int64_t repeats = num_query_heads / num_key_value_heads;
  const Output gate = gate_dense ? gate_dense->call(graph, {query_in})[0] : Output{};
  const Output q = query_dense->call(graph, {query_in})[0];                         // (batch, T, query_heads, head_dim)
  const Output key_dense_output = key_dense->call(graph, {key_in})[0];
  const Output value_dense_output = value_dense->call(graph, {value_in})[0];
  const Output k = repeat_heads(key_dense_output, repeats);    // (batch, S, query_heads, head_dim)
  const Output v = repeat_heads(value_dense_output, repeats);  // (batch, S, query_heads, head_dim)
  const Output scores = heads_scores(q, k, head_dim);                               // (batch, query_heads, T, S)
  const Output visible = heads_visible_mask(
      graph, *this, call, masks, scores,
      {.num_heads = num_query_heads, .query_mask_argument = true, .sliding_window = options.sliding_window});
  // Keras's Softmax-layer path (hidden rows' weights zero) with dropout or returned
  // scores, its dot_product_attention path (equal weights) otherwise.
  const bool return_scores = argument("return_attention_scores");
  if (return_scores && options.flash_attention.value_or(false)) {
    throw ValueError("Returning attention scores is not supported when flash attention is enabled. Please disable "
                     "flash attention to access attention scores.");
  }
  const HeadsAttention attention =
      heads_attend(graph, scores, visible, v,
                   {.rate = options.dropout, .seed = seed, .stream = static_cast<std::uint64_t>(current_call)},
                   return_scores || options.dropout > 0.0);
  const Output attended = gate.valid() ? ops::mul(attention.attended, gate) : attention.attended;
  Output out = output_dense->call(graph, {attended})[0];
  std::vector<Output> projected{q, key_dense_output, value_dense_output, out};
  if (gate.valid()) projected.insert(projected.begin(), gate);
  add_projection_activity_penalties(graph, *this, projected);
  if (return_scores) return {out, attention.weights};
  return {out};
}

std::vector<Output> GroupQueryAttentionImpl::compute_mask(Graph&, const std::vector<Output>&,
                                                          const std::vector<Output>& masks) {
  if (masks.empty() || !masks[0].valid()) return {};
  return {masks[0]};
}

GroupQueryAttention::GroupQueryAttention(std::int64_t head_dim, std::int64_t num_query_heads,
                                         std::int64_t num_key_value_heads, GroupQueryAttentionOptions options)
    : Layer(std::make_shared<GroupQueryAttentionImpl>(head_dim, num_query_heads, num_key_value_heads,
                                                      std::move(options))) {}

std::vector<KerasTensor> GroupQueryAttention::operator()(const std::vector<KerasTensor>& inputs,
                                                         GroupQueryAttentionCall call) const {
  return call_heads_attention(*this, inputs, call);
}

namespace {
std::vector<KerasClass::VarGroup> group_query_projection_vars(const LayerImpl& impl) {
  const auto& m = static_cast<const GroupQueryAttentionImpl&>(impl);
  if (!m.query_dense) return {};
  // Keras 3 files keep the projections under their (private) attribute names, and the
  // layer under its Python class's name, grouped_query_attention (io/weights_h5.cc).
  std::vector<KerasClass::VarGroup> groups{{"_query_dense/", {}, Layer(m.query_dense)},
                                           {"_key_dense/", {}, Layer(m.key_dense)}};
  if (m.gate_dense) groups.push_back({"_gate_dense/", {}, Layer(m.gate_dense)});
  groups.push_back({"_value_dense/", {}, Layer(m.value_dense)});
  groups.push_back({"_output_dense/", {}, Layer(m.output_dense)});
  return groups;
}

KerasClass described(const std::string& class_name) {
  return describe_layer<GroupQueryAttention>(
             class_name, &GroupQueryAttentionImpl::options,
             keras_field("head_dim", &GroupQueryAttentionImpl::head_dim).at_least(1),
             keras_field("num_query_heads", &GroupQueryAttentionImpl::num_query_heads).at_least(1),
             keras_field("num_key_value_heads", &GroupQueryAttentionImpl::num_key_value_heads).at_least(1))
      .vars(group_query_projection_vars);
}

// Keras's .keras files and configs name the class GroupQueryAttention; its .h5 files name
// it after the Python class, GroupedQueryAttention, which reads as the same layer.
const bool group_query_attention_registered =
    register_keras_class(described("GroupQueryAttention")) && register_keras_class(described("GroupedQueryAttention"));
}  // namespace

}  // namespace strata::layers
