// A fused recurrent op's attributes read once, for its CPU kernel (core/cpu/kernels/rnn.cc)
// and its CUDA kernels (core/cuda/rnn_kernels.cc) alike: the cell, activations, step order
// and sizes (core/ops/rnn_cell.h), the mask's presence and dropout.
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/graph.h"
#include "core/ops/rnn_cell.h"
#include "core/shape.h"

namespace strata::ops {

inline Cell cell_of(const Attrs& a) {
  const std::string& c = a.get<std::string>("cell");
  if (c == "simple_rnn") return Cell::simple;
  if (c == "lstm") return Cell::lstm;
  if (c == "gru") return Cell::gru;
  throw ValueError("rnn_sequence: unknown cell '" + c + "' (simple_rnn, lstm, gru)");
}

inline Act act_of(const std::string& name) {
  if (name == "tanh") return Act::tanh;
  if (name == "sigmoid") return Act::sigmoid;
  if (name == "relu") return Act::relu;
  if (name == "linear" || name.empty()) return Act::linear;
  if (name == "hard_sigmoid") return Act::hard_sigmoid;
  if (name == "hard_sigmoid_keras2") return Act::hard_sigmoid_keras2;
  throw ValueError("rnn_sequence: activation '" + name +
                   "' is not fused (tanh, sigmoid, relu, linear, hard_sigmoid, hard_sigmoid_keras2)");
}

struct Config : RnnLayout {
  bool has_mask;
  float dropout, recurrent_dropout;
  std::uint64_t seed;
  // x: the input's shape (B,T,F); H: the units.
  explicit Config(const Node& n, const Shape& x, std::int64_t H_, bool mask)
      : RnnLayout{.cell = cell_of(n.attrs),
                  .activation = act_of(n.attrs.get<std::string>("activation")),
                  .recurrent_activation = act_of(n.attrs.get<std::string>("recurrent_activation")),
                  .reset_after = n.attrs.get_or<bool>("reset_after", true),
                  .go_backwards = n.attrs.get_or<bool>("go_backwards", false),
                  .input_in_processing_order = n.attrs.get_or<bool>("input_in_processing_order", false),
                  .reverse_output = n.attrs.get_or<bool>("reverse_output", false),
                  .zero_output_for_mask = n.attrs.get_or<bool>("zero_output_for_mask", false),
                  .B = x[0],
                  .T = x[1],
                  .F = x[2],
                  .H = H_,
                  .G = gates_of(cell_of(n.attrs))},
        has_mask(mask),
        dropout(static_cast<float>(n.attrs.get_or<double>("dropout", 0.0))),
        recurrent_dropout(static_cast<float>(n.attrs.get_or<double>("recurrent_dropout", 0.0))),
        seed(static_cast<std::uint64_t>(n.attrs.get_or<std::int64_t>("seed", 0))) {}
};

}  // namespace strata::ops
