// Bidirectional <-> Keras config: {"layer": <the wrapped RNN's entry>, "merge_mode",
// "backward_layer" (Keras 3 writes it; tf.keras only when one was given)}. The wrapped
// layer is read through the registry, so any registered RNN class works. Like Keras 3, the
// forward and backward layers are fresh copies of "layer" (named forward_<name>,
// backward_<name>); a given backward_layer must be that copy (same class and cell, opposite
// go_backwards): a different backward layer is refused rather than silently replaced.
// Keras 3 variables: forward_layer/cell/vars and backward_layer/cell/vars (the wrapped
// layer's own groups, prefixed).
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/bidirectional.h"

namespace strata::io {
namespace {

using layers::BidirectionalImpl;

json entry_of(const Layer& layer) {
  const LayerConfigEntry* e = find_layer_config(layer.class_name());
  return json{{"module", e ? e->module : "keras.layers"},
              {"class_name", layer.class_name()},
              {"config", layer_config(layer)},
              {"registered_name", nullptr}};
}

json to_config(const LayerImpl& impl) {
  const auto& b = static_cast<const BidirectionalImpl&>(impl);
  const json merge = b.options.merge_mode == "none" ? json(nullptr) : json(b.options.merge_mode);
  return json{{"merge_mode", merge},
              {"layer", entry_of(Layer(b.forward_layer))},
              {"backward_layer", entry_of(Layer(b.backward_layer))}};
}

// The keys that make two directions differ in math (name and go_backwards aside).
json essential(const Layer& layer) {
  json c = layer_config(layer);
  json out = json::object();
  for (const char* k : {"units", "activation", "recurrent_activation", "use_bias", "reset_after",
                        "return_sequences", "return_state", "stateful", "cell"}) {
    if (c.contains(k)) out[k] = c[k];
  }
  if (out.contains("cell")) {  // generic RNN: compare the cells without their names
    json cell = out["cell"];
    if (cell.contains("config")) cell["config"].erase("name");
    out["cell"] = cell;
  }
  return out;
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("Bidirectional", c);
  Layer inner = layer_from_config(require_key(c, "layer", where), ctx);
  layers::BidirectionalOptions o;
  o.name = c.value("name", "");
  const json merge = c.value("merge_mode", json("concat"));
  if (merge.is_null()) {
    o.merge_mode = "none";
  } else if (merge.is_string()) {
    o.merge_mode = merge.get<std::string>();
  } else {
    throw ValueError(where + ": 'merge_mode' must be a string or null, got " + merge.dump());
  }
  Layer layer = layers::Bidirectional(inner, o);
  if (c.contains("backward_layer") && !c["backward_layer"].is_null()) {
    const auto& b = static_cast<const BidirectionalImpl&>(layer.impl());
    Layer given = layer_from_config(c["backward_layer"], ctx);
    const auto* given_rnn = dynamic_cast<const layers::RNNImpl*>(&given.impl());
    if (!given_rnn || given.class_name() != inner.class_name() ||
        given_rnn->options.go_backwards == b.forward_layer->options.go_backwards ||
        essential(given) != essential(Layer(b.backward_layer))) {
      throw NotImplementedError(where +
                                ": a backward_layer that differs from the forward layer ('" +
                                given.name() + "', " + given.class_name() +
                                ") is not supported; only one built from the same config with "
                                "go_backwards flipped is");
    }
    // Keras uses the given layer itself, so its name (and weight paths) are the file's.
    auto& bw = *static_cast<BidirectionalImpl&>(layer.impl()).backward_layer;
    bw.name = given.name();
    bw.weight_prefix = layer.name() + "/" + given.name();
  }
  return layer;
}

std::vector<VarGroup> vars(const LayerImpl& impl) {
  const auto& b = static_cast<const BidirectionalImpl&>(impl);
  std::vector<VarGroup> out;
  for (const auto& [prefix, rnn] : {std::pair{std::string("forward_layer/"), b.forward_layer},
                                    std::pair{std::string("backward_layer/"), b.backward_layer}}) {
    for (VarGroup g : keras3_var_groups(Layer(rnn))) {
      g.path = prefix + g.path;
      out.push_back(std::move(g));
    }
  }
  return out;
}

const bool registered =
    register_layer_config({"Bidirectional", "keras.layers", to_config, from_config, vars});

}  // namespace
}  // namespace strata::io
