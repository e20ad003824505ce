// LSTMCell and LSTM, as Keras: four gates (i, f, c, o) in one kernel, states h and c,
// unit_forget_bias sets the forget gate's bias to 1. LSTM is an RNN owning one fresh
// LSTMCell named "lstm_cell"; the cell's time loop is the fused rnn_sequence op every kind
// runs (rnn_cells.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/recurrent/rnn.h"
#include "layers/recurrent/rnn_cells.h"

namespace strata::layers {

struct LSTMCellOptions {  // Keras signature order
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer recurrent_initializer = "orthogonal";
  Initializer bias_initializer = "zeros";
  bool unit_forget_bias = true;
  Regularizer kernel_regularizer;
  Regularizer recurrent_regularizer;
  Regularizer bias_regularizer;
  Constraint kernel_constraint;
  Constraint recurrent_constraint;
  Constraint bias_constraint;
  double dropout = 0.0;
  double recurrent_dropout = 0.0;
  std::optional<std::uint64_t> seed;
  std::string name;
};

class LSTMCell : public Layer {
 public:
  explicit LSTMCell(std::int64_t units, LSTMCellOptions options = {});
};

struct LSTMOptions {  // Keras signature order
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer recurrent_initializer = "orthogonal";
  Initializer bias_initializer = "zeros";
  bool unit_forget_bias = true;
  Regularizer kernel_regularizer;
  Regularizer recurrent_regularizer;
  Regularizer bias_regularizer;
  Regularizer activity_regularizer;
  Constraint kernel_constraint;
  Constraint recurrent_constraint;
  Constraint bias_constraint;
  double dropout = 0.0;
  double recurrent_dropout = 0.0;
  std::optional<std::uint64_t> seed;
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  bool stateful = false;
  bool unroll = false;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class LSTM : public RNN {
 public:
  explicit LSTM(std::int64_t units, LSTMOptions options = {});
};

}  // namespace strata::layers
