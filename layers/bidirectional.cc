#include "layers/bidirectional.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/sequence_ops.h"

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

void BidirectionalImpl::build(const std::vector<TensorSpec>& inputs) {
  for (auto* l : {forward_layer.get(), backward_layer.get()}) {
    l->build(inputs);
    l->built = true;
  }
}

std::vector<Layer> BidirectionalImpl::sublayers() const { return {Layer(forward_layer), Layer(backward_layer)}; }

std::vector<Output> BidirectionalImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  return run(graph, inputs, {});
}

std::vector<Output> BidirectionalImpl::call_masked(Graph& graph, const std::vector<Output>& inputs,
                                                   const std::vector<Output>& masks) {
  return run(graph, inputs, masks);
}

std::vector<Output> BidirectionalImpl::compute_mask(Graph&, const std::vector<Output>&,
                                                    const std::vector<Output>& masks) {
  const auto& o = forward_layer->options;
  std::size_t n = (options.merge_mode == "none" ? 2 : 1) + (o.return_state ? 2 * forward_layer->num_states() : 0);
  std::vector<Output> out(n);
  if (o.return_sequences && !masks.empty()) {
    out[0] = masks[0];
    if (options.merge_mode == "none") out[1] = masks[0];
  }
  return out;
}

std::vector<Output> BidirectionalImpl::run(Graph& graph, const std::vector<Output>& inputs,
                                           const std::vector<Output>& masks) {
  std::vector<Output> f, b;
  forward_layer->current_call = backward_layer->current_call = current_call;
  {
    NameScope scope(graph, forward_layer->name);
    f = masks.empty() ? forward_layer->call(graph, inputs) : forward_layer->call_masked(graph, inputs, masks);
  }
  {
    NameScope scope(graph, backward_layer->name);
    b = masks.empty() ? backward_layer->call(graph, inputs) : backward_layer->call_masked(graph, inputs, masks);
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

}  // namespace strata::layers
