// The generic RNN(cell) <-> Keras config, in both dialects: the RNN options and "cell", one
// cell's entry or a StackedRNNCells entry (Keras 2: a list of cell entries). The cells
// (SimpleRNNCell, LSTMCell, GRUCell) and SimpleRNN, LSTM, GRU describe their own configs
// (layers/recurrent/rnn_cells.h, layers/recurrent/rnn.cc), and this unit reads and writes the RNN options
// through RNNOptions' description (time_major refused); what remains here is "cell": the
// StackedRNNCells entry has no layer class of its own in Strata, and Strata writes it as
// {"name": "<rnn>_cells", "trainable", "cells"}.
// - Keras 3 keeps RNN variables on the cell: layers/<key>/cell/vars/{0,1,2}; a stacked
//   RNN's cells at cell/cells/<snake_case(class)>[_n]/vars.
#include <map>

#include "core/error.h"
#include "io/keras_class_config.h"
#include "io/layer_config.h"
#include "layers/recurrent/rnn.h"

namespace strata::io {
namespace {

using layers::RNNCellImpl;
using layers::RNNOptions;
using layers::RNNImpl;

// --- writing ---------------------------------------------------------------------------

// The RNN options, as RNNOptions describes them (layers/recurrent/rnn.h).
const std::vector<layers::FieldSpec>& rnn_fields() {
  static const std::vector<layers::FieldSpec> fields = [] {
    layers::KerasClass k;
    layers::append_keras_specs(k, RNNOptions::keras_fields());
    k.fixed({layers::keras_unmodeled("cell").unwritten()});  // read here (cells_from_config)
    return k.fields;
  }();
  return fields;
}

json entry_of(const Layer& layer, const std::string& module) {
  return json{{"module", module},
              {"class_name", layer.class_name()},
              {"config", layer_config(layer)},
              {"registered_name", nullptr}};
}

json generic_rnn_to_config(const LayerImpl& impl) {
  const auto& r = static_cast<const RNNImpl&>(impl);
  std::vector<layers::ConfigValue> values;
  layers::append_keras_values(values, r.options, RNNOptions::keras_fields());
  json j = fields_to_config(rnn_fields(), values);
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
  const std::unique_ptr<layers::ConfigSource> source = config_source("RNN", rnn_fields(), c, ctx);
  RNNOptions o{.name = source->name()};
  layers::read_keras_fields(*source, RNNOptions::keras_fields(), o);
  const std::string where = source->where();
  return layers::RNN(cells_from_config(require_key(c, "cell", where), ctx, where), o);
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

const bool rnn_config_registered =
    register_layer_config({"RNN", "keras.layers", generic_rnn_to_config, generic_rnn_from_config, rnn_vars});

}  // namespace
}  // namespace strata::io
