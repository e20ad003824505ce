#include "layers/recurrent/lstm.h"

#include "core/rng.h"

namespace strata::layers {

namespace {

// The cell and the layer options name the cell's fields alike.
template <typename Options>
CellConfig lstm_cell_config(std::int64_t units, const Options& o) {
  return {.kind = "lstm", .units = units, .activation = o.activation, .recurrent_activation = o.recurrent_activation,
          .use_bias = o.use_bias, .kernel_initializer = o.kernel_initializer,
          .recurrent_initializer = o.recurrent_initializer, .bias_initializer = o.bias_initializer,
          .unit_forget_bias = o.unit_forget_bias, .kernel_regularizer = o.kernel_regularizer,
          .recurrent_regularizer = o.recurrent_regularizer, .bias_regularizer = o.bias_regularizer,
          .kernel_constraint = o.kernel_constraint, .recurrent_constraint = o.recurrent_constraint,
          .bias_constraint = o.bias_constraint, .dropout = o.dropout, .recurrent_dropout = o.recurrent_dropout,
          .seed = o.seed ? *o.seed : next_seed()};
}

}  // namespace

LSTMCell::LSTMCell(std::int64_t units, LSTMCellOptions o)
    : Layer(std::make_shared<RNNCellImpl>("LSTMCell", lstm_cell_config(units, o), o.name)) {}

LSTM::LSTM(std::int64_t units, LSTMOptions o)
    : RNN(std::make_shared<RNNImpl>(
          "LSTM", std::vector{std::make_shared<RNNCellImpl>("LSTMCell", lstm_cell_config(units, o), "lstm_cell")},
          rnn_options(o))) {}

namespace {
const bool lstm_registered = [] {
  register_keras_class(describe_cell("LSTMCell", "lstm"));
  register_keras_class(describe_recurrent_layer("LSTM", "LSTMCell", "lstm", "lstm_cell"));
  return true;
}();
}  // namespace

}  // namespace strata::layers
