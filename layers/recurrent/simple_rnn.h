// SimpleRNNCell and SimpleRNN, as Keras: h_t = activation(x_t·W + h_{t-1}·U + b), one
// state. SimpleRNN is an RNN owning one fresh SimpleRNNCell named "simple_rnn_cell"; the
// cell's time loop is the fused rnn_sequence op every kind runs (rnn_cells.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/recurrent/rnn.h"
#include "layers/recurrent/rnn_cells.h"

namespace strata::layers {

struct SimpleRNNCellOptions {  // Keras signature order
  std::string activation = "tanh";
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer recurrent_initializer = "orthogonal";
  Initializer bias_initializer = "zeros";
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

class SimpleRNNCell : public Layer {
 public:
  explicit SimpleRNNCell(std::int64_t units, SimpleRNNCellOptions options = {});
};

struct SimpleRNNOptions {  // Keras signature order
  std::string activation = "tanh";
  bool use_bias = true;
  Initializer kernel_initializer = "glorot_uniform";
  Initializer recurrent_initializer = "orthogonal";
  Initializer bias_initializer = "zeros";
  Regularizer kernel_regularizer;
  Regularizer recurrent_regularizer;
  Regularizer bias_regularizer;
  Regularizer activity_regularizer;
  Constraint kernel_constraint;
  Constraint recurrent_constraint;
  Constraint bias_constraint;
  double dropout = 0.0;
  double recurrent_dropout = 0.0;
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  bool stateful = false;
  bool unroll = false;
  std::optional<std::uint64_t> seed;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class SimpleRNN : public RNN {
 public:
  explicit SimpleRNN(std::int64_t units, SimpleRNNOptions options = {});
};

}  // namespace strata::layers
