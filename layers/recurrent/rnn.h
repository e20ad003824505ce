// Recurrent layers: RNN(cell) (one cell or a stack); SimpleRNN, LSTM and GRU are an RNN
// owning one fresh cell named "simple_rnn_cell", "lstm_cell", "gru_cell", as Keras builds
// them (simple_rnn.h, lstm.h, gru.h). Inputs: x (batch, timesteps, features) and optionally the initial
// states as extra inputs. Outputs: the last output (or the whole sequence with
// return_sequences), then the last states with return_state. A mask (Embedding with
// mask_zero, Masking) makes masked steps carry state and output over: the input's, or one
// passed with the call (Keras's call(sequences, ..., mask=...): Keras 3 files record an
// Embedding's mask so, computed by a NotEqual operation node).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/call_tensors.h"
#include "layers/layer.h"
#include "layers/recurrent/rnn_cells.h"

namespace strata::layers {

struct RNNOptions {  // Keras signature order
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  bool stateful = false;
  bool unroll = false;  // accepted for Keras compatibility: the loop is always one fused op
  bool zero_output_for_mask = false;
  // Keras's recurrent layers take it (their cells do not): each output's penalty / batch.
  Regularizer activity_regularizer;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = RNNOptions;
    return std::tuple{keras_field("return_sequences", &O::return_sequences),
                      keras_field("return_state", &O::return_state),
                      keras_field("go_backwards", &O::go_backwards),
                      keras_field("stateful", &O::stateful),
                      keras_field("unroll", &O::unroll),  // the same math unrolled or not
                      keras_field("zero_output_for_mask", &O::zero_output_for_mask),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_refused("time_major", "false").unwritten().because(
                          "inputs are (batch, time, features)")};
  }
};

class RNNImpl : public LayerImpl, public TakesTensorArguments {
 public:
  RNNImpl(const std::string& class_name, std::vector<std::shared_ptr<RNNCellImpl>> cells, RNNOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  bool accepts_input_count(std::size_t n) const override { return n == 1 || n == 1 + num_states(); }
  // mask=, and Keras 3's initial_state=[...] (layers/recurrent/initial_state.h).
  std::vector<std::string> call_argument_names() const override;
  std::vector<TensorArgument> tensor_arguments() const override;
  std::vector<Layer> sublayers() const override;
  std::string data_parallel_refusal() const override;

  std::size_t num_states() const;
  // Zeros the carried states of a stateful layer (keras: layer.reset_states()).
  void reset_states();
  // An unbuilt copy with fresh cells; go_backwards flipped when `flip` (Bidirectional).
  std::shared_ptr<RNNImpl> fresh_copy(bool flip_go_backwards, const std::string& new_name) const;

  std::vector<std::shared_ptr<RNNCellImpl>> cells;
  RNNOptions options;
  std::string weight_prefix;         // default: the layer's name
  bool reverse_output = false;       // go_backwards sequences back in input order (Bidirectional)
  std::vector<Variable> state_vars;  // stateful only: (batch, units) per state

 private:
  std::vector<Output> run(Graph& graph, const std::vector<Output>& inputs, Output mask);
};

class RNN : public Layer {
 public:
  explicit RNN(const Layer& cell, RNNOptions options = {});
  // Stacked cells (Keras: RNN([cell1, cell2])): each cell's sequence feeds the next.
  explicit RNN(const std::vector<Layer>& cells, RNNOptions options = {});
  void reset_states() const;

 protected:
  explicit RNN(std::shared_ptr<RNNImpl> impl) : Layer(std::move(impl)) {}
};

// The RNN options of a cell kind's layer options (SimpleRNNOptions, LSTMOptions, GRUOptions).
template <typename O>
RNNOptions rnn_options(const O& o) {
  return {.return_sequences = o.return_sequences, .return_state = o.return_state, .go_backwards = o.go_backwards,
          .stateful = o.stateful, .unroll = o.unroll, .zero_output_for_mask = false,
          .activity_regularizer = o.activity_regularizer, .name = o.name, .dtype = o.dtype};
}

// The Keras class of a cell kind's layer (SimpleRNN, LSTM, GRU): the layer's keys, then its
// one cell's (`implementation`, a speed hint, is ignored). Keras 3 keeps the variables on
// the cell: layers/<key>/cell/vars.
KerasClass describe_recurrent_layer(const char* class_name, const char* cell_class, const char* kind,
                                    const char* cell_name);

}  // namespace strata::layers
