#include "layers/recurrent/gru.h"

#include "core/rng.h"

namespace strata::layers {

namespace {

// The cell and the layer options name the cell's fields alike.
template <typename Options>
CellConfig gru_cell_config(std::int64_t units, const Options& o) {
  return {.kind = "gru", .units = units, .activation = o.activation, .recurrent_activation = o.recurrent_activation,
          .use_bias = o.use_bias, .kernel_initializer = o.kernel_initializer,
          .recurrent_initializer = o.recurrent_initializer, .bias_initializer = o.bias_initializer,
          .unit_forget_bias = false, .kernel_regularizer = o.kernel_regularizer,
          .recurrent_regularizer = o.recurrent_regularizer, .bias_regularizer = o.bias_regularizer,
          .kernel_constraint = o.kernel_constraint, .recurrent_constraint = o.recurrent_constraint,
          .bias_constraint = o.bias_constraint, .dropout = o.dropout, .recurrent_dropout = o.recurrent_dropout,
          .seed = o.seed ? *o.seed : next_seed(), .reset_after = o.reset_after};
}

}  // namespace

GRUCell::GRUCell(std::int64_t units, GRUCellOptions o)
    : Layer(std::make_shared<RNNCellImpl>("GRUCell", gru_cell_config(units, o), o.name)) {}

GRU::GRU(std::int64_t units, GRUOptions o)
    : RNN(std::make_shared<RNNImpl>(
          "GRU", std::vector{std::make_shared<RNNCellImpl>("GRUCell", gru_cell_config(units, o), "gru_cell")},
          rnn_options(o))) {}

namespace {
const bool gru_registered = [] {
  register_keras_class(describe_cell("GRUCell", "gru"));
  register_keras_class(describe_recurrent_layer("GRU", "GRUCell", "gru", "gru_cell"));
  return true;
}();
}  // namespace

}  // namespace strata::layers
