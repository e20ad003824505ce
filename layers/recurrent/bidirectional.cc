#include "layers/recurrent/bidirectional.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/sequence_ops.h"
#include "layers/keras_class.h"
#include "layers/recurrent/initial_state.h"

namespace strata::layers {

namespace {

const RNNImpl& as_rnn(const Layer& layer) {
  auto* rnn = dynamic_cast<const RNNImpl*>(&layer.impl());
  if (!rnn) {
    throw ValueError("Bidirectional expects a recurrent layer (SimpleRNN, LSTM, GRU, RNN), got " +
                     layer.class_name() + " '" + layer.name() + "'");
  }
  return *rnn;
}

std::string strip(const std::string& name, const std::string& prefix) {
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

}  // namespace

BidirectionalImpl::BidirectionalImpl(const Layer& layer, BidirectionalOptions options_)
    : LayerImpl("Bidirectional", options_.name), options(std::move(options_)) {
  const auto& m = options.merge_mode;
  if (m != "concat" && m != "sum" && m != "mul" && m != "ave" && m != "none") {
    throw ValueError("Bidirectional: merge_mode must be one of concat, sum, mul, ave, none; got '" + m + "'");
  }
  const RNNImpl& rnn = as_rnn(layer);
  // Both directions are copies of the layer's config, and activity regularizers are not
  // part of it here: refused rather than dropped.
  if (rnn.activity_regularizer.defined()) {
    throw NotImplementedError("Bidirectional: layer '" + rnn.name + "' has an activity_regularizer (" +
                              rnn.activity_regularizer.class_name() +
                              "), which Strata does not apply inside a wrapper");
  }
  if (rnn.built) throw ValueError("Bidirectional: layer '" + rnn.name + "' is already built; pass a new, unused layer");
  // Both directions are fresh copies built from the layer's config, as Keras 3 does.
  forward_layer = rnn.fresh_copy(false, "forward_" + strip(rnn.name, "forward_"));
  backward_layer = rnn.fresh_copy(true, "backward_" + strip(rnn.name, "backward_"));
  for (auto* l : {forward_layer.get(), backward_layer.get()}) {
    l->options.zero_output_for_mask = l->options.return_sequences;
    l->weight_prefix = name + "/" + l->name;
  }
  backward_layer->reverse_output = true;
}

void BidirectionalImpl::build(const std::vector<TensorSpec>& all) {
  // The directions build from the layer's own inputs, not a mask passed with the call.
  const std::vector<TensorSpec> inputs = split_call_inputs(*this, current_arguments, all).inputs;
  for (auto* l : {forward_layer.get(), backward_layer.get()}) {
    l->build(inputs);
    l->built = true;
  }
}

std::vector<Layer> BidirectionalImpl::sublayers() const { return {Layer(forward_layer), Layer(backward_layer)}; }

std::vector<Output> BidirectionalImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return call_masked(graph, inputs, {});
}

std::vector<Output> BidirectionalImpl::call_masked(Graph& graph, const std::vector<Output>& all,
                                                   const std::vector<Output>& masks) {
  const RecurrentCall call = recurrent_call(*this, all, masks, num_states());
  return run(graph, call.inputs, call.mask.valid() ? std::vector<Output>{call.mask} : std::vector<Output>{});
}

std::vector<std::string> BidirectionalImpl::call_argument_names() const {
  return recurrent_call_argument_names(num_states());
}

std::vector<TensorArgument> BidirectionalImpl::tensor_arguments() const {
  return recurrent_tensor_arguments(num_states());
}

std::vector<Output> BidirectionalImpl::compute_mask(Graph&, const std::vector<Output>& all,
                                                    const std::vector<Output>& masks) {
  const auto& o = forward_layer->options;
  std::size_t n = (options.merge_mode == "none" ? 2 : 1) + (o.return_state ? 2 * forward_layer->num_states() : 0);
  std::vector<Output> out(n);
  if (o.return_sequences) {
    out[0] = mask_argument_or_input_mask(split_call_inputs(*this, current_arguments, all), masks);
    if (options.merge_mode == "none") out[1] = out[0];
  }
  return out;
}

std::vector<Output> BidirectionalImpl::run(Graph& graph, const std::vector<Output>& inputs,
                                           const std::vector<Output>& masks) {
  std::vector<Output> f, b;
  forward_layer->current_call = backward_layer->current_call = current_call;
  // Each direction gets its inputs, states and mask as its own inputs, not as a call's
  // arguments: x, then its half of the states where they are given.
  forward_layer->current_arguments = backward_layer->current_arguments = {};
  std::vector<Output> forward_inputs{inputs[0]}, backward_inputs{inputs[0]};
  if (inputs.size() > 1) {
    const auto half = static_cast<std::ptrdiff_t>(forward_layer->num_states());
    forward_inputs.insert(forward_inputs.end(), inputs.begin() + 1, inputs.begin() + 1 + half);
    backward_inputs.insert(backward_inputs.end(), inputs.begin() + 1 + half, inputs.end());
  }
  {
    NameScope scope(graph, forward_layer->name);
    f = forward_layer->call_masked(graph, forward_inputs, masks);
  }
  {
    NameScope scope(graph, backward_layer->name);
    b = backward_layer->call_masked(graph, backward_inputs, masks);
  }
  std::vector<Output> out;
  const auto& m = options.merge_mode;
  if (m == "concat") out.push_back(ops::concat_last(f[0], b[0]));
  if (m == "sum") out.push_back(ops::add(f[0], b[0]));
  if (m == "mul") out.push_back(ops::mul(f[0], b[0]));
  if (m == "ave") out.push_back(ops::mul(ops::add(f[0], b[0]), 0.5f));
  if (m == "none") out = {f[0], b[0]};
  out.insert(out.end(), f.begin() + 1, f.end());
  out.insert(out.end(), b.begin() + 1, b.end());
  return out;
}

Bidirectional::Bidirectional(const Layer& layer, BidirectionalOptions options)
    : Layer(std::make_shared<BidirectionalImpl>(layer, std::move(options))) {}

namespace {

// What makes two directions differ in math (name and go_backwards aside): the cells' kinds
// and units, activations, use_bias, GRU's reset_after; return_sequences, return_state and
// stateful.
bool same_math(const RNNImpl& a, const RNNImpl& b) {
  if (a.class_name() != b.class_name() || a.cells.size() != b.cells.size()) return false;
  const auto& x = a.options;
  const auto& y = b.options;
  if (x.return_sequences != y.return_sequences || x.return_state != y.return_state ||
      x.stateful != y.stateful)
    return false;
  for (std::size_t i = 0; i < a.cells.size(); ++i) {
    const CellConfig& c = a.cells[i]->config;
    const CellConfig& d = b.cells[i]->config;
    if (c.kind != d.kind || c.units != d.units || c.activation != d.activation ||
        c.use_bias != d.use_bias)
      return false;
    if (c.kind != "simple_rnn" && c.recurrent_activation != d.recurrent_activation) return false;
    if (c.kind == "gru" && c.reset_after != d.reset_after) return false;
  }
  return true;
}

// {"merge_mode" (null is "none"), "layer": the wrapped RNN's entry, "backward_layer" (Keras 3
// writes it; tf.keras only when one was given)}. The wrapped layer is read through the
// registry, so any recurrent class works. Like Keras 3, both directions are fresh copies of
// "layer" (forward_<name>, backward_<name>); a given backward_layer must be that copy (same
// class and cells, opposite go_backwards): a different one is refused rather than silently
// replaced. Keras 3 variables: forward_layer/... and backward_layer/... (the wrapped
// layer's own groups).
KerasClass bidirectional_class() {
  FieldSpec merge_mode = spec_of("merge_mode", ValueKind::string);
  merge_mode.nullable = true;
  const FieldSpec inner = spec_of("layer", ValueKind::layer);
  FieldSpec backward = spec_of("backward_layer", ValueKind::layer);
  backward.nullable = true;
  KerasClass k;
  k.class_name = "Bidirectional";
  k.fields = {merge_mode, inner, backward};
  k.values = [](const LayerImpl& impl) {
    const auto& b = static_cast<const BidirectionalImpl&>(impl);
    const std::string& m = b.options.merge_mode;
    return std::vector<ConfigValue>{m == "none" ? ConfigValue{} : ConfigValue{m}, Layer(b.forward_layer),
                                    Layer(b.backward_layer)};
  };
  k.make = [=](const ConfigSource& src) -> Layer {
    std::optional<ConfigValue> wrapped = src.get(inner);
    if (!wrapped) throw ValueError(src.where() + ": config has no 'layer'");
    BidirectionalOptions o{.name = src.name()};
    if (std::optional<ConfigValue> m = src.get(merge_mode))
      o.merge_mode = std::holds_alternative<std::string>(*m) ? std::get<std::string>(*m) : "none";
    const Layer forward = std::get<Layer>(*wrapped);
    Layer layer = Bidirectional(forward, o);
    std::optional<ConfigValue> given = src.get(backward);
    if (!given || !std::holds_alternative<Layer>(*given)) return layer;
    auto& b = static_cast<BidirectionalImpl&>(layer.impl());
    const Layer& g = std::get<Layer>(*given);
    const auto* given_rnn = dynamic_cast<const RNNImpl*>(&g.impl());
    if (!given_rnn || g.class_name() != forward.class_name() ||
        given_rnn->options.go_backwards == b.forward_layer->options.go_backwards ||
        !same_math(*given_rnn, *b.backward_layer)) {
      throw NotImplementedError(src.where() + ": a backward_layer that differs from the forward layer ('" +
                                g.name() + "', " + g.class_name() +
                                ") is not supported; only one built from the same config with "
                                "go_backwards flipped is");
    }
    // Keras uses the given layer itself, so its name (and weight paths) are the file's.
    b.backward_layer->name = g.name();
    b.backward_layer->weight_prefix = layer.name() + "/" + g.name();
    return layer;
  };
  k.keras3_vars = [](const LayerImpl& impl) {
    const auto& b = static_cast<const BidirectionalImpl&>(impl);
    return std::vector<KerasClass::VarGroup>{{"forward_layer/", {}, Layer(b.forward_layer)},
                                             {"backward_layer/", {}, Layer(b.backward_layer)}};
  };
  return k;
}

const bool bidirectional_registered = register_keras_class(bidirectional_class());

}  // namespace

}  // namespace strata::layers
