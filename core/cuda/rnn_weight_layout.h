// Keras's recurrent weights in cuDNN's RNN weight space, and cuDNN's weight gradients
// back in Keras's layouts: the per-element functions of the layout kernels
// (core/cuda/rnn_layout.cu) and the gate order they follow. Plain C++ with
// STRATA_HOST_DEVICE, so tests/core/cuda_rnn_weight_layout_test.cc runs the same
// functions on the host in every build, against cuDNN's documented cell equations.
#pragma once

#include <cstdint>

#include "core/ops/rnn_cell.h"
#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata::cuda {

// Where each of Keras's gates sits in cuDNN's weight space, in floats from its start:
// its input matrix (H rows of F, row-major: cuDNN multiplies W·x), its recurrent matrix
// (H rows of H) and its input and recurrent biases (H each). Keras's kernel (F, G·H) and
// recurrent_kernel (H, G·H) hold the same matrices transposed, gate after gate.
struct RnnWeightLayout {
  static constexpr int kMaxGates = 4;
  std::int64_t F = 0, H = 0, G = 0;
  // Keras's bias has a second, recurrent row (a GRU with reset_after): (2, G·H). Else it
  // is (G·H), all of it the input bias, and cuDNN's recurrent biases are 0.
  bool two_biases = false;
  std::int64_t input_matrix[kMaxGates] = {}, recurrent_matrix[kMaxGates] = {}, input_bias[kMaxGates] = {},
               recurrent_bias[kMaxGates] = {};
};

// cuDNN's "linear layer" id of Keras's gate `gate` (0-based in Keras's order: LSTM i, f,
// c, o; GRU z, r, h), for its input matrix and bias, or (recurrent) its recurrent ones.
// cuDNN orders an LSTM's gates as Keras does (i, f, c, o: ids 0-3, then 4-7) and a GRU's
// as r, z, h (ids 0-2, then 3-5), so a GRU's first two gates swap.
inline int cudnn_lin_layer_id(ops::Cell cell, int gate, bool recurrent) {
  const int gates = ops::gates_of(cell);
  const int id = cell == ops::Cell::gru && gate < 2 ? 1 - gate : gate;
  return recurrent ? gates + id : id;
}

// The elements the layout kernels run over: per gate, the input matrix (H·F), the
// recurrent matrix (H·H), then the two biases (H each).
STRATA_HOST_DEVICE inline std::int64_t rnn_weight_elements(const RnnWeightLayout& l) {
  return l.G * (l.H * l.F + l.H * l.H + 2 * l.H);
}

// Element i of the weight space (in rnn_weight_elements' order), from Keras's weights.
STRATA_HOST_DEVICE inline void pack_rnn_weight(const RnnWeightLayout& l, std::int64_t i, const float* kernel,
                                               const float* recurrent_kernel, const float* bias, float* space) {
  const std::int64_t GH = l.G * l.H, each = l.H * l.F + l.H * l.H + 2 * l.H;
  const std::int64_t g = i / each;
  std::int64_t r = i % each;
  if (r < l.H * l.F) {
    const std::int64_t h = r / l.F, f = r % l.F;
    space[l.input_matrix[g] + r] = kernel[f * GH + g * l.H + h];
    return;
  }
  r -= l.H * l.F;
  if (r < l.H * l.H) {
    const std::int64_t h = r / l.H, k = r % l.H;
    space[l.recurrent_matrix[g] + r] = recurrent_kernel[k * GH + g * l.H + h];
    return;
  }
  r -= l.H * l.H;
  if (r < l.H) {
    space[l.input_bias[g] + r] = bias[g * l.H + r];
    return;
  }
  r -= l.H;
  space[l.recurrent_bias[g] + r] = l.two_biases ? bias[GH + g * l.H + r] : 0.f;
}

// Element i's weight gradient, from cuDNN's weight space back into Keras's layouts.
// Without a recurrent bias row the bias's gradient is the input biases': both biases
// add to the same pre-activation, so their gradients are equal.
STRATA_HOST_DEVICE inline void unpack_rnn_weight_grad(const RnnWeightLayout& l, std::int64_t i, const float* space,
                                                      float* dkernel, float* drecurrent_kernel, float* dbias) {
  const std::int64_t GH = l.G * l.H, each = l.H * l.F + l.H * l.H + 2 * l.H;
  const std::int64_t g = i / each;
  std::int64_t r = i % each;
  if (r < l.H * l.F) {
    const std::int64_t h = r / l.F, f = r % l.F;
    dkernel[f * GH + g * l.H + h] = space[l.input_matrix[g] + r];
    return;
  }
  r -= l.H * l.F;
  if (r < l.H * l.H) {
    const std::int64_t h = r / l.H, k = r % l.H;
    drecurrent_kernel[k * GH + g * l.H + h] = space[l.recurrent_matrix[g] + r];
    return;
  }
  r -= l.H * l.H;
  if (r < l.H) {
    dbias[g * l.H + r] = space[l.input_bias[g] + r];
    return;
  }
  r -= l.H;
  if (l.two_biases) dbias[GH + g * l.H + r] = space[l.recurrent_bias[g] + r];
}

}  // namespace strata::cuda
