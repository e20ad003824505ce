// The time loop of a ConvLSTM layer as one op, for inputs whose number of time steps is
// known only when the program runs (issue #38: Keras's next-frame models take
// Input((None, rows, cols, channels))). A layer whose time steps are known unrolls its loop
// into the graph instead (layers/recurrent/conv_lstm.cc says why).
//
//   conv_lstm_recurrence(xz (B,T,S...,4F), recurrent_kernel (K...,F,4F)
//                        [, h0 (B,S...,F), c0 (B,S...,F)] [, recurrent_masks (4,B,S...,F)]
//                        [, mask (B,T) or (B,T,S...)])
//     -> y (B,T,S...,F) in processing order, the last step's output (B,S...,F), the last
//        h, the last c, workspace (B,T,S...,7F): what backpropagation through time reads.
//
// xz holds each step's input convolution and bias, channels last (the layer computes it
// for every step at once). Per processing step, in input order or backwards:
//   z = xz_t + Σ_g conv(h · m_g, U_g)     (Keras's recurrent_conv: "same", strides 1;
//                                           m_g gate g's recurrent dropout mask, or ones)
//   i, f, o = recurrent_activation(z_i, z_f, z_o); c' = f·c + i·activation(z_c);
//   h' = o·activation(c')
// A masked position keeps h and c and outputs the previous output (zeros with
// zero_output_for_mask), as Keras's backend rnn; a (B,T) mask covers every position.
// Without h0 and c0 the states start at zero. Activations: those the fused recurrent ops
// take (core/ops/rnn_cell.h). float32 (mixed precision's rounding at the op's edges).
// CPU kernels only (core/cpu/kernels/conv_lstm.cc): a program placed on a GPU refuses the
// op by name.
#pragma once

#include "core/graph.h"

namespace strata::ops {

struct ConvLSTMRecurrenceOptions {
  std::string activation = "tanh";
  std::string recurrent_activation = "sigmoid";
  bool go_backwards = false;
  bool zero_output_for_mask = false;
};

// h0 and c0 (both or neither), recurrent_masks and mask may be invalid Outputs.
// Returns {y, last output, last h, last c, workspace}.
std::vector<Output> conv_lstm_recurrence(Output xz, Output recurrent_kernel, Output h0, Output c0,
                                         Output recurrent_masks, Output mask, const ConvLSTMRecurrenceOptions& options);

// Where a conv_lstm_recurrence node's inputs are, from its attrs (-1: not given). Its
// gradient, conv_lstm_recurrence_grad, takes the same inputs followed by the workspace
// and the gradients of y, the last output, h and c (from `count` on), and gives those of
// xz, the recurrent kernel, then h0 and c0 where given.
struct ConvLSTMRecurrenceSlots {
  int h0 = -1, c0 = -1, recurrent_masks = -1, mask = -1, count = 2;
  explicit ConvLSTMRecurrenceSlots(const Attrs& attrs);
};

// The number of values per (batch, step, position) and filter in the workspace: i, f,
// activation(z_c), o, activation(c'), the carried c, the carried h.
inline constexpr int kConvLSTMWorkspaceUnits = 7;

}  // namespace strata::ops
