// The generic RNN(cell) <-> Keras config, in both dialects: the RNN options and "cell", one
// cell's entry or a StackedRNNCells entry (Keras 2: a list of cell entries). The cells
// (SimpleRNNCell, LSTMCell, GRUCell) and SimpleRNN, LSTM, GRU describe their own configs
// (layers/rnn_cells.h, layers/rnn.cc); this unit remains for the StackedRNNCells entry,
// which Keras writes as a container without a layer class of its own here.
// - `time_major` true is refused; `unroll` does not change the math.
// - Keras 3 keeps RNN variables on the cell: layers/<key>/cell/vars/{0,1,2}; a stacked
//   RNN's cells at cell/cells/<snake_case(class)>[_n]/vars.
#include <map>

#include "core/error.h"
#include "io/layer_config.h"
#include "layers/rnn.h"

namespace strata::io {
namespace {

using layers::RNNCellImpl;
using layers::RNNImpl;

// --- writing ---------------------------------------------------------------------------

json rnn_keys(const RNNImpl& r) {
  const auto& o = r.options;
  return json{{"return_sequences", o.return_sequences},
              {"return_state", o.return_state},
              {"go_backwards", o.go_backwards},
              {"stateful", o.stateful},
              {"unroll", o.unroll},
              {"zero_output_for_mask", o.zero_output_for_mask}};
}

json entry_of(const Layer& layer, const std::string& module) {
  return json{{"module", module},
              {"class_name", layer.class_name()},
              {"config", layer_config(layer)},
              {"registered_name", nullptr}};
}

json generic_rnn_to_config(const LayerImpl& impl) {
  const auto& r = static_cast<const RNNImpl&>(impl);
  json j = rnn_keys(r);
  if (r.cells.size() == 1) {
    j["cell"] = entry_of(Layer(r.cells[0]), "keras.layers");
  } else {
    json cells = json::array();
    for (const auto& c : r.cells) cells.push_back(entry_of(Layer(c), "keras.layers"));
    j["cell"] =
        json{{"module", "keras.layers"},
             {"class_name", "StackedRNNCells"},
             {"config", json{{"name", r.name + "_cells"}, {"trainable", true}, {"cells", cells}}},
             {"registered_name", nullptr}};
  }
  return j;
}

// --- reading ---------------------------------------------------------------------------

bool flag(const json& c, const char* key, bool fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_boolean())
    throw ValueError(where + ": '" + key + "' must be true or false, got " + c[key].dump());
  return c[key].get<bool>();
}

struct LayerArgs {
  bool return_sequences = false, return_state = false, go_backwards = false, stateful = false,
       unroll = false, zero_output_for_mask = false;
};

LayerArgs layer_args(const json& c, const std::string& where) {
  if (flag(c, "time_major", false, where))
    throw NotImplementedError(
        where + ": time_major=true is not supported (inputs are (batch, time, features))");
  LayerArgs a;
  a.return_sequences = flag(c, "return_sequences", false, where);
  a.return_state = flag(c, "return_state", false, where);
  a.go_backwards = flag(c, "go_backwards", false, where);
  a.stateful = flag(c, "stateful", false, where);
  a.unroll = flag(c, "unroll", false, where);  // same math unrolled or not
  a.zero_output_for_mask = flag(c, "zero_output_for_mask", false, where);
  return a;
}

// RNN's "cell": one cell entry, a StackedRNNCells entry, or (Keras 2) a list of cell entries.
std::vector<Layer> cells_from_config(const json& cell, const ConfigContext& ctx,
                                     const std::string& where) {
  std::vector<Layer> cells;
  const json* list = nullptr;
  if (cell.is_array()) {
    list = &cell;
  } else if (cell.is_object() && cell.value("class_name", "") == "StackedRNNCells") {
    list = &require_key(require_key(cell, "config", where), "cells", where);
  }
  if (list) {
    for (const auto& c : *list) cells.push_back(layer_from_config(c, ctx));
  } else {
    cells.push_back(layer_from_config(cell, ctx));
  }
  for (const auto& c : cells) {
    if (!dynamic_cast<const RNNCellImpl*>(&c.impl())) {
      throw NotImplementedError(where + ": cell class '" + c.class_name() +
                                "' is not supported (SimpleRNNCell, LSTMCell, GRUCell and "
                                "StackedRNNCells of them are)");
    }
  }
  return cells;
}

Layer generic_rnn_from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("RNN", c);
  const LayerArgs l = layer_args(c, where);
  std::vector<Layer> cells = cells_from_config(require_key(c, "cell", where), ctx, where);
  return layers::RNN(cells, {.return_sequences = l.return_sequences,
                             .return_state = l.return_state,
                             .go_backwards = l.go_backwards,
                             .stateful = l.stateful,
                             .unroll = l.unroll,
                             .zero_output_for_mask = l.zero_output_for_mask,
                             .name = c.value("name", "")});
}

// --- Keras 3 variable paths ----------------------------------------------------------------

std::vector<VarGroup> rnn_vars(const LayerImpl& impl) {
  const auto& r = static_cast<const RNNImpl&>(impl);
  if (r.cells.size() == 1) return {{"cell/vars", r.cells[0]->weights}};
  // StackedRNNCells keeps its list `cells`, keyed like any Keras 3 container.
  std::vector<VarGroup> out;
  std::map<std::string, int> used;
  for (const auto& c : r.cells) {
    std::string key = c->config.kind + "_cell";
    auto [it, fresh] = used.emplace(key, 0);
    if (!fresh) key += "_" + std::to_string(++it->second);
    out.push_back({"cell/cells/" + key + "/vars", c->weights});
  }
  return out;
}

const bool registered =
    register_layer_config({"RNN", "keras.layers", generic_rnn_to_config, generic_rnn_from_config, rnn_vars});

}  // namespace
}  // namespace strata::io
