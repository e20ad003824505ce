// The recurrent cell every kind shares (SimpleRNNCell, LSTMCell and GRUCell are this cell
// with their config: simple_rnn.h, lstm.h, gru.h). A cell owns its weights (kernel,
// recurrent_kernel and, with use_bias, bias) and is attached to exactly one recurrent layer: attaching it to
// a second one throws, telling the user to create a new cell. The cell's whole time loop
// runs as one fused op (core/ops/rnn_ops.cc).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

// Everything that defines a cell; a fresh copy is built from it (Bidirectional).
struct CellConfig {
  std::string kind;  // "simple_rnn", "lstm", "gru"
  std::int64_t units = 0;
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
  std::uint64_t seed = 0;
  bool reset_after = true;
};

// Keras's keys of a cell of one kind, in Keras's get_config order: the one description of
// the recurrent options behind the six options structs (the cells' and the layers'). Only
// gated cells have recurrent_activation, only LSTM unit_forget_bias, only GRU reset_after.
template <bool Gated, bool Lstm, bool Gru>
constexpr auto cell_keras_fields() {
  using C = CellConfig;
  return std::tuple_cat(
      std::tuple{keras_field("units", &C::units).at_least(1),
                 keras_field("activation", &C::activation, Spelling::activation)},
      keras_fields_if<Gated>(
          keras_field("recurrent_activation", &C::recurrent_activation, Spelling::activation)),
      std::tuple{keras_field("use_bias", &C::use_bias),
                 keras_field("kernel_initializer", &C::kernel_initializer),
                 keras_field("recurrent_initializer", &C::recurrent_initializer),
                 keras_field("bias_initializer", &C::bias_initializer)},
      keras_fields_if<Lstm>(keras_field("unit_forget_bias", &C::unit_forget_bias)),
      std::tuple{keras_field("kernel_regularizer", &C::kernel_regularizer),
                 keras_field("recurrent_regularizer", &C::recurrent_regularizer),
                 keras_field("bias_regularizer", &C::bias_regularizer),
                 keras_field("kernel_constraint", &C::kernel_constraint),
                 keras_field("recurrent_constraint", &C::recurrent_constraint),
                 keras_field("bias_constraint", &C::bias_constraint),
                 keras_field("dropout", &C::dropout),
                 keras_field("recurrent_dropout", &C::recurrent_dropout)},
      keras_fields_if<Gru>(keras_field("reset_after", &C::reset_after)),
      std::tuple{keras_field("seed", &C::seed, Spelling::seed)});
}

// That description for a kind ("simple_rnn", "lstm", "gru"), for the cells and the layers.
void append_cell_keras_specs(KerasClass& k, const std::string& kind);
void append_cell_keras_values(std::vector<ConfigValue>& out, const CellConfig& c);
// A cell of `kind` from a config (a cell's, or a recurrent layer's holding one): absent keys
// keep the kind's defaults; a Keras 2 GRU without reset_after computed reset_after=False; an
// absent or null seed is drawn.
CellConfig read_cell_config(const ConfigSource& src, const std::string& kind);

// The result of running a cell over a sequence.
struct CellSequence {
  Output sequence;            // (B, T, units), processing order
  std::vector<Output> states; // last states: h (and c for LSTM)
};

class RNNCellImpl : public LayerImpl {
 public:
  RNNCellImpl(const std::string& class_name, CellConfig config, const std::string& name);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  int num_states() const { return config.kind == "lstm" ? 2 : 1; }
  // Creates the weights, named "<prefix>/<cell name>/kernel" (Keras 3 paths).
  void build_cell(std::int64_t input_dim, const std::string& prefix);
  // Runs the cell over x (B,T,F). `states` holds num_states() initial states. `call`
  // (the layer's call index) makes each call of a shared layer draw its own dropout masks.
  CellSequence run(Graph& graph, Output x, const std::vector<Output>& states, Output mask, bool go_backwards,
                   bool input_in_processing_order, bool zero_output_for_mask, bool reverse_output = false,
                   std::uint64_t call = 0) const;
  // A new, unbuilt cell with the same config and name.
  std::shared_ptr<RNNCellImpl> fresh_copy() const;
  // Records `layer` as this cell's owner; throws ValueError if another layer owns it.
  void attach(const LayerImpl* layer);

  CellConfig config;
  // Without use_bias, `bias` holds zeros for the fused op and is not among `weights`.
  Variable kernel, recurrent_kernel, bias;

 private:
  const LayerImpl* owner_ = nullptr;
};

// The Keras class of a cell kind's cell (SimpleRNNCell, LSTMCell, GRUCell): its keys only.
KerasClass describe_cell(const char* class_name, const char* kind);

}  // namespace strata::layers
