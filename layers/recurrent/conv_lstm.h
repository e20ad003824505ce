// ConvLSTM1D, ConvLSTM2D and ConvLSTM3D, as Keras: an LSTM whose input and recurrent
// transformations are convolutions. Per time step, with x_t (batch, spatial..., channels)
// and the states h, c (batch, out spatial..., filters):
//   z = conv(x_t, kernel; strides, padding, dilation_rate) + bias + conv(h, recurrent_kernel; "same")
//   i, f, o = recurrent_activation(z_i, z_f, z_o);  c' = f·c + i·activation(z_c);  h' = o·activation(c')
// The kernel is (window..., channels, 4·filters), the recurrent kernel (window..., filters,
// 4·filters), the bias (4·filters), gates in the order i, f, c, o; the recurrent convolution
// always has stride 1, no dilation and "same" padding. Inputs are (batch, time, spatial...,
// channels), or (batch, time, channels, spatial...) with data_format "channels_first".
// Keras keeps the weights on a cell named "conv_lstm_cell" (weights
// "<layer>/conv_lstm_cell/kernel"); Strata holds them on the layer under those names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/call_tensors.h"
#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

template <int Rank>
struct ConvLSTMOptions {  // Keras signature order
  Window<Rank> strides = 1;
  std::string padding = "valid";  // "valid" or "same"
  std::string data_format;        // "" = "channels_last"
  Window<Rank> dilation_rate = 1;
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
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  bool return_sequences = false;
  bool return_state = false;
  bool go_backwards = false;
  bool stateful = false;
  // Keras's RNN keywords: the same math unrolled or not; zero_output_for_mask: a masked step
  // outputs zeros instead of the step before's output.
  bool unroll = false;
  bool zero_output_for_mask = false;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = ConvLSTMOptions;
    return std::tuple{keras_field("return_sequences", &O::return_sequences),
                      keras_field("return_state", &O::return_state),
                      keras_field("go_backwards", &O::go_backwards),
                      keras_field("stateful", &O::stateful),
                      keras_field("unroll", &O::unroll),
                      keras_field("zero_output_for_mask", &O::zero_output_for_mask),
                      keras_field("strides", &O::strides, window_spelling(Rank)).at_least(1),
                      keras_field("padding", &O::padding, Spelling::padding),
                      keras_field("data_format", &O::data_format, Spelling::data_format),
                      keras_field("dilation_rate", &O::dilation_rate, window_spelling(Rank)).at_least(1),
                      keras_field("activation", &O::activation, Spelling::activation),
                      keras_field("recurrent_activation", &O::recurrent_activation, Spelling::activation),
                      keras_field("use_bias", &O::use_bias),
                      keras_field("kernel_initializer", &O::kernel_initializer),
                      keras_field("recurrent_initializer", &O::recurrent_initializer),
                      keras_field("bias_initializer", &O::bias_initializer),
                      keras_field("unit_forget_bias", &O::unit_forget_bias),
                      keras_field("kernel_regularizer", &O::kernel_regularizer),
                      keras_field("recurrent_regularizer", &O::recurrent_regularizer),
                      keras_field("bias_regularizer", &O::bias_regularizer),
                      keras_field("activity_regularizer", &O::activity_regularizer),
                      keras_field("kernel_constraint", &O::kernel_constraint),
                      keras_field("recurrent_constraint", &O::recurrent_constraint),
                      keras_field("bias_constraint", &O::bias_constraint),
                      keras_field("dropout", &O::dropout),
                      keras_field("recurrent_dropout", &O::recurrent_dropout),
                      keras_field("seed", &O::seed),
                      keras_refused("time_major", "false").unwritten().because(
                          "inputs are (batch, time, ...)")};
  }
};

template <int Rank>
class ConvLSTMImpl : public LayerImpl, public TakesTensorArguments {
 public:
  ConvLSTMImpl(std::int64_t filters, Window<Rank> kernel_size, ConvLSTMOptions<Rank> options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  // A mask (the input's, or Keras's call(..., mask=m)) as Keras's RNN applies it: where a
  // step is masked, h and c keep their values and the step's output is the step before's
  // (zeros with zero_output_for_mask, or before any step). (batch, time) masks whole steps;
  // Masking's (batch, time, spatial...) mask, per position, where the states keep the
  // input's spatial sizes (padding "same", strides 1), channels last, as Keras's loop allows.
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  // return_sequences passes the mask on, as Keras's; the states have none.
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  // x, or x and the initial states h and c; mask= and Keras 3's initial_state=[h, c] as
  // call arguments (layers/recurrent/initial_state.h).
  bool accepts_input_count(std::size_t n) const override { return n == 1 || n == 3; }
  std::vector<std::string> call_argument_names() const override;
  std::vector<TensorArgument> tensor_arguments() const override;
  std::string data_parallel_refusal() const override;
  // Zeros the carried states of a stateful layer (keras: layer.reset_states()).
  void reset_states();

  std::int64_t filters;
  Window<Rank> kernel_size;
  ConvLSTMOptions<Rank> options;
  std::uint64_t seed;  // options.seed, or drawn
  Variable kernel, recurrent_kernel, bias;
  std::vector<Variable> state_vars;  // stateful only: h and c, (batch, out spatial..., filters)

 private:
  // The states' spatial sizes for an input of these spatial sizes.
  std::vector<std::int64_t> state_sizes(const std::vector<std::int64_t>& input_sizes) const;
  std::vector<Output> run(Graph& graph, const std::vector<Output>& inputs, Output mask);
};

template <int Rank>
class ConvLSTM : public Layer {
 public:
  ConvLSTM(std::int64_t filters, Window<Rank> kernel_size, ConvLSTMOptions<Rank> options = {});
  void reset_states() const;
};

using ConvLSTM1DOptions = ConvLSTMOptions<1>;
using ConvLSTM2DOptions = ConvLSTMOptions<2>;
using ConvLSTM3DOptions = ConvLSTMOptions<3>;
using ConvLSTM1DImpl = ConvLSTMImpl<1>;
using ConvLSTM2DImpl = ConvLSTMImpl<2>;
using ConvLSTM3DImpl = ConvLSTMImpl<3>;
using ConvLSTM1D = ConvLSTM<1>;
using ConvLSTM2D = ConvLSTM<2>;
using ConvLSTM3D = ConvLSTM<3>;

extern template class ConvLSTMImpl<1>;
extern template class ConvLSTMImpl<2>;
extern template class ConvLSTMImpl<3>;
extern template class ConvLSTM<1>;
extern template class ConvLSTM<2>;
extern template class ConvLSTM<3>;

}  // namespace strata::layers
