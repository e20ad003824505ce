// Recurrent layers <-> Keras config: SimpleRNN, LSTM, GRU, the generic RNN(cell) with its
// cells (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells), in both dialects.
// - Keras 2 files: recurrent_activation "hard_sigmoid" is Keras 2's clip(0.2x + 0.5, 0, 1)
//   (activation_from_config); a GRU without "reset_after" (Keras 2.0-2.3) is reset_after=False.
// - `implementation` (a speed hint) is ignored; `unroll` does not change the math; `time_major`
//   true is refused. Regularizers and constraints only shape training: accepted, not applied.
// - Keras 3 keeps RNN variables on the cell: layers/<key>/cell/vars/{0,1,2}; a stacked
//   RNN's cells at cell/cells/<snake_case(class)>[_n]/vars.
#include <map>

#include "core/error.h"
#include "io/layer_config.h"
#include "layers/rnn.h"

namespace strata::io {
namespace {

using layers::CellConfig;
using layers::RNNCellImpl;
using layers::RNNImpl;

// --- writing ---------------------------------------------------------------------------

json seed_json(std::uint64_t seed) {
  // Keras seeds are small integers; a drawn 64-bit seed is not written (Keras draws anew).
  return seed <= 0x7fffffffu ? json(seed) : json(nullptr);
}

// The cell's keys in Keras 3's get_config order.
json cell_keys(const CellConfig& c) {
  json j{{"units", c.units}, {"activation", activation_to_config(c.activation)}};
  if (c.kind != "simple_rnn")
    j["recurrent_activation"] = activation_to_config(c.recurrent_activation);
  j["use_bias"] = c.use_bias;
  j["kernel_initializer"] = initializer_to_config(c.kernel_initializer);
  j["recurrent_initializer"] = initializer_to_config(c.recurrent_initializer);
  j["bias_initializer"] = initializer_to_config(c.bias_initializer);
  if (c.kind == "lstm") j["unit_forget_bias"] = c.unit_forget_bias;
  for (const char* k : {"kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                        "kernel_constraint", "recurrent_constraint", "bias_constraint"})
    j[k] = nullptr;
  j["dropout"] = c.dropout;
  j["recurrent_dropout"] = c.recurrent_dropout;
  if (c.kind == "gru") j["reset_after"] = c.reset_after;
  j["seed"] = seed_json(c.seed);
  return j;
}

json rnn_keys(const RNNImpl& r) {
  const auto& o = r.options;
  return json{{"return_sequences", o.return_sequences},
              {"return_state", o.return_state},
              {"go_backwards", o.go_backwards},
              {"stateful", o.stateful},
              {"unroll", o.unroll},
              {"zero_output_for_mask", o.zero_output_for_mask}};
}

json builtin_to_config(const LayerImpl& impl) {  // SimpleRNN, LSTM, GRU
  const auto& r = static_cast<const RNNImpl&>(impl);
  json j = rnn_keys(r);
  json cell = cell_keys(r.cells.at(0)->config);
  j.update(cell);
  j["activity_regularizer"] = nullptr;
  return j;
}

json cell_to_config(const LayerImpl& impl) {
  return cell_keys(static_cast<const RNNCellImpl&>(impl).config);
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

double number(const json& c, const char* key, double fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_number())
    throw ValueError(where + ": '" + key + "' must be a number, got " + c[key].dump());
  return c[key].get<double>();
}

bool flag(const json& c, const char* key, bool fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_boolean())
    throw ValueError(where + ": '" + key + "' must be true or false, got " + c[key].dump());
  return c[key].get<bool>();
}

// Everything a cell needs, from a cell's or a layer's config.
struct CellArgs {
  std::int64_t units = 0;
  std::string activation = "tanh", recurrent_activation = "sigmoid";
  bool use_bias = true, unit_forget_bias = true, reset_after = true;
  Initializer kernel_initializer = "glorot_uniform", recurrent_initializer = "orthogonal",
              bias_initializer = "zeros";
  double dropout = 0.0, recurrent_dropout = 0.0;
  std::optional<std::uint64_t> seed;
};

CellArgs cell_args(const json& c, const ConfigContext& ctx, const std::string& where) {
  CellArgs a;
  const std::int64_t units = positive_int(c, "units", where);
  a.units = units;
  if (c.contains("activation")) a.activation = activation_from_config(c["activation"], ctx, where);
  if (c.contains("recurrent_activation"))
    a.recurrent_activation = activation_from_config(c["recurrent_activation"], ctx, where);
  if (a.recurrent_activation.empty()) a.recurrent_activation = "linear";
  a.use_bias = flag(c, "use_bias", true, where);
  if (!a.use_bias)
    throw NotImplementedError(where + ": use_bias=false is not supported for recurrent layers");
  a.unit_forget_bias = flag(c, "unit_forget_bias", true, where);
  // Keras 2.0-2.3 GRUs had no reset_after key and computed reset_after=False.
  a.reset_after = flag(c, "reset_after", ctx.keras_major >= 3, where);
  if (c.contains("kernel_initializer"))
    a.kernel_initializer = initializer_from_config(c["kernel_initializer"], where);
  if (c.contains("recurrent_initializer"))
    a.recurrent_initializer = initializer_from_config(c["recurrent_initializer"], where);
  if (c.contains("bias_initializer"))
    a.bias_initializer = initializer_from_config(c["bias_initializer"], where);
  a.dropout = number(c, "dropout", 0.0, where);
  a.recurrent_dropout = number(c, "recurrent_dropout", 0.0, where);
  if (c.contains("seed") && c["seed"].is_number_integer()) a.seed = c["seed"].get<std::uint64_t>();
  return a;
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

Layer finish(Layer layer, const LayerArgs& a) {
  static_cast<RNNImpl&>(layer.impl()).options.zero_output_for_mask = a.zero_output_for_mask;
  return layer;
}

Layer simple_rnn_from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("SimpleRNN", c);
  const CellArgs a = cell_args(c, ctx, where);
  const LayerArgs l = layer_args(c, where);
  return finish(layers::SimpleRNN(a.units, {.activation = a.activation,
                                            .use_bias = a.use_bias,
                                            .kernel_initializer = a.kernel_initializer,
                                            .recurrent_initializer = a.recurrent_initializer,
                                            .bias_initializer = a.bias_initializer,
                                            .dropout = a.dropout,
                                            .recurrent_dropout = a.recurrent_dropout,
                                            .return_sequences = l.return_sequences,
                                            .return_state = l.return_state,
                                            .go_backwards = l.go_backwards,
                                            .stateful = l.stateful,
                                            .unroll = l.unroll,
                                            .seed = a.seed,
                                            .name = c.value("name", "")}),
                l);
}

Layer lstm_from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("LSTM", c);
  const CellArgs a = cell_args(c, ctx, where);
  const LayerArgs l = layer_args(c, where);
  return finish(layers::LSTM(a.units, {.activation = a.activation,
                                       .recurrent_activation = a.recurrent_activation,
                                       .use_bias = a.use_bias,
                                       .kernel_initializer = a.kernel_initializer,
                                       .recurrent_initializer = a.recurrent_initializer,
                                       .bias_initializer = a.bias_initializer,
                                       .unit_forget_bias = a.unit_forget_bias,
                                       .dropout = a.dropout,
                                       .recurrent_dropout = a.recurrent_dropout,
                                       .seed = a.seed,
                                       .return_sequences = l.return_sequences,
                                       .return_state = l.return_state,
                                       .go_backwards = l.go_backwards,
                                       .stateful = l.stateful,
                                       .unroll = l.unroll,
                                       .name = c.value("name", "")}),
                l);
}

Layer gru_from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("GRU", c);
  const CellArgs a = cell_args(c, ctx, where);
  const LayerArgs l = layer_args(c, where);
  return finish(layers::GRU(a.units, {.activation = a.activation,
                                      .recurrent_activation = a.recurrent_activation,
                                      .use_bias = a.use_bias,
                                      .kernel_initializer = a.kernel_initializer,
                                      .recurrent_initializer = a.recurrent_initializer,
                                      .bias_initializer = a.bias_initializer,
                                      .dropout = a.dropout,
                                      .recurrent_dropout = a.recurrent_dropout,
                                      .seed = a.seed,
                                      .return_sequences = l.return_sequences,
                                      .return_state = l.return_state,
                                      .go_backwards = l.go_backwards,
                                      .stateful = l.stateful,
                                      .unroll = l.unroll,
                                      .reset_after = a.reset_after,
                                      .name = c.value("name", "")}),
                l);
}

Layer simple_rnn_cell_from_config(const json& c, const ConfigContext& ctx) {
  const CellArgs a = cell_args(c, ctx, describe("SimpleRNNCell", c));
  return layers::SimpleRNNCell(a.units, {.activation = a.activation,
                                         .use_bias = a.use_bias,
                                         .kernel_initializer = a.kernel_initializer,
                                         .recurrent_initializer = a.recurrent_initializer,
                                         .bias_initializer = a.bias_initializer,
                                         .dropout = a.dropout,
                                         .recurrent_dropout = a.recurrent_dropout,
                                         .seed = a.seed,
                                         .name = c.value("name", "")});
}

Layer lstm_cell_from_config(const json& c, const ConfigContext& ctx) {
  const CellArgs a = cell_args(c, ctx, describe("LSTMCell", c));
  return layers::LSTMCell(a.units, {.activation = a.activation,
                                    .recurrent_activation = a.recurrent_activation,
                                    .use_bias = a.use_bias,
                                    .kernel_initializer = a.kernel_initializer,
                                    .recurrent_initializer = a.recurrent_initializer,
                                    .bias_initializer = a.bias_initializer,
                                    .unit_forget_bias = a.unit_forget_bias,
                                    .dropout = a.dropout,
                                    .recurrent_dropout = a.recurrent_dropout,
                                    .seed = a.seed,
                                    .name = c.value("name", "")});
}

Layer gru_cell_from_config(const json& c, const ConfigContext& ctx) {
  const CellArgs a = cell_args(c, ctx, describe("GRUCell", c));
  return layers::GRUCell(a.units, {.activation = a.activation,
                                   .recurrent_activation = a.recurrent_activation,
                                   .use_bias = a.use_bias,
                                   .kernel_initializer = a.kernel_initializer,
                                   .recurrent_initializer = a.recurrent_initializer,
                                   .bias_initializer = a.bias_initializer,
                                   .dropout = a.dropout,
                                   .recurrent_dropout = a.recurrent_dropout,
                                   .reset_after = a.reset_after,
                                   .seed = a.seed,
                                   .name = c.value("name", "")});
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

std::vector<VarGroup> cell_vars(const LayerImpl& impl) { return {{"vars", impl.weights}}; }

const bool registered = [] {
  register_layer_config(
      {"SimpleRNN", "keras.layers", builtin_to_config, simple_rnn_from_config, rnn_vars});
  register_layer_config({"LSTM", "keras.layers", builtin_to_config, lstm_from_config, rnn_vars});
  register_layer_config({"GRU", "keras.layers", builtin_to_config, gru_from_config, rnn_vars});
  register_layer_config(
      {"RNN", "keras.layers", generic_rnn_to_config, generic_rnn_from_config, rnn_vars});
  register_layer_config(
      {"SimpleRNNCell", "keras.layers", cell_to_config, simple_rnn_cell_from_config, cell_vars});
  register_layer_config(
      {"LSTMCell", "keras.layers", cell_to_config, lstm_cell_from_config, cell_vars});
  register_layer_config(
      {"GRUCell", "keras.layers", cell_to_config, gru_cell_from_config, cell_vars});
  return true;
}();

}  // namespace
}  // namespace strata::io
