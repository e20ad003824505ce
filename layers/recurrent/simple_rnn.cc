#include "layers/recurrent/simple_rnn.h"

#include "core/rng.h"

namespace strata::layers {

namespace {

// The cell and the layer options name the cell's fields alike.
template <typename Options>
CellConfig simple_rnn_cell_config(std::int64_t units, const Options& o) {
  return {.kind = "simple_rnn", .units = units, .activation = o.activation, .recurrent_activation = "sigmoid",
          .use_bias = o.use_bias, .kernel_initializer = o.kernel_initializer,
          .recurrent_initializer = o.recurrent_initializer, .bias_initializer = o.bias_initializer,
          .unit_forget_bias = false, .kernel_regularizer = o.kernel_regularizer,
          .recurrent_regularizer = o.recurrent_regularizer, .bias_regularizer = o.bias_regularizer,
          .kernel_constraint = o.kernel_constraint, .recurrent_constraint = o.recurrent_constraint,
          .bias_constraint = o.bias_constraint, .dropout = o.dropout, .recurrent_dropout = o.recurrent_dropout,
          .seed = o.seed ? *o.seed : next_seed()};
}

}  // namespace

SimpleRNNCell::SimpleRNNCell(std::int64_t units, SimpleRNNCellOptions o)
    : Layer(std::make_shared<RNNCellImpl>("SimpleRNNCell", simple_rnn_cell_config(units, o), o.name)) {}

SimpleRNN::SimpleRNN(std::int64_t units, SimpleRNNOptions o)
    : RNN(std::make_shared<RNNImpl>("SimpleRNN",
                                    std::vector{std::make_shared<RNNCellImpl>(
                                        "SimpleRNNCell", simple_rnn_cell_config(units, o), "simple_rnn_cell")},
                                    rnn_options(o))) {}

namespace {
const bool simple_rnn_registered = [] {
  register_keras_class(describe_cell("SimpleRNNCell", "simple_rnn"));
  register_keras_class(describe_recurrent_layer("SimpleRNN", "SimpleRNNCell", "simple_rnn", "simple_rnn_cell"));
  return true;
}();
}  // namespace

}  // namespace strata::layers
