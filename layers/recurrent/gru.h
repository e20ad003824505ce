// GRUCell and GRU, as Keras: three gates (z, r, h) in one kernel, one state; with
// reset_after (Keras 3's default) the reset gate applies after the recurrent product and
// the bias has two rows. GRU is an RNN owning one fresh GRUCell named "gru_cell"; the
// cell's time loop is the fused rnn_sequence op every kind runs (rnn_cells.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/recurrent/rnn.h"
#include "layers/recurrent/rnn_cells.h"

namespace strata::layers {

struct GRUCellOptions {  // Keras signature order
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
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
  bool reset_after = true;
  std::optional<std::uint64_t> seed;
  std::string name;
};

class GRUCell : public Layer {
 public:
  explicit GRUCell(std::int64_t units, GRUCellOptions options = {});
};

struct GRUOptions {  // Keras signature order
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
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
  std::optional<std::uint64_t> seed;
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  bool stateful = false;
  bool unroll = false;
  bool reset_after = true;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class GRU : public RNN {
 public:
  explicit GRU(std::int64_t units, GRUOptions options = {});
};

}  // namespace strata::layers
