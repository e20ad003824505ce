// What the fused recurrent ops' CPU kernel (core/cpu/kernels/rnn.cc) and CUDA kernels
// (core/cuda/rnn.cu) share, so that both run the same math on the same layout: the cells,
// the fused activations and their derivatives, the workspace's width, and the order in
// which a sequence is read, masked and written. Plain C++17 without any other header of
// the project's: the CUDA kernels compile it for the device (STRATA_HOST_DEVICE).
#pragma once

#include <cmath>
#include <cstdint>

#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata::ops {

enum class Cell { simple, lstm, gru };
enum class Act { tanh, sigmoid, relu, linear, hard_sigmoid, hard_sigmoid_keras2 };

STRATA_HOST_DEVICE inline int gates_of(Cell c) { return c == Cell::lstm ? 4 : c == Cell::gru ? 3 : 1; }

// Workspace floats per (batch, step), in units of H. Per cell, in this order:
//   simple_rnn: activation output, carried h;
//   lstm:       i, f, g, o, activation(c_new), carried c, carried h;
//   gru:        z, r, candidate, the candidate's recurrent term (reset_after: h·U_h plus
//               its bias; else (r * h)·U_h), carried h.
// The carried h is always the last H floats: the next step's h_prev.
STRATA_HOST_DEVICE inline int ws_units(Cell c) { return c == Cell::lstm ? 7 : c == Cell::gru ? 5 : 2; }

// std::min and std::max as ternaries, with their results (a NaN first argument is kept),
// because device code cannot call them.
STRATA_HOST_DEVICE inline float min_of(float a, float b) { return b < a ? b : a; }
STRATA_HOST_DEVICE inline float max_of(float a, float b) { return a < b ? b : a; }

STRATA_HOST_DEVICE inline float act(Act a, float x) {
  switch (a) {
    case Act::tanh: return std::tanh(x);
    case Act::sigmoid: return 1.f / (1.f + std::exp(-x));
    case Act::relu: return x > 0.f ? x : 0.f;
    case Act::linear: return x;
    case Act::hard_sigmoid: return min_of(max_of(x + 3.f, 0.f), 6.f) / 6.f;
    case Act::hard_sigmoid_keras2: return min_of(max_of(0.2f * x + 0.5f, 0.f), 1.f);
  }
  return x;
}

// Derivative from the activation's output y.
STRATA_HOST_DEVICE inline float dact(Act a, float y) {
  switch (a) {
    case Act::tanh: return 1.f - y * y;
    case Act::sigmoid: return y * (1.f - y);
    case Act::relu: return y > 0.f ? 1.f : 0.f;
    case Act::linear: return 1.f;
    case Act::hard_sigmoid: return (y > 0.f && y < 1.f) ? 1.f / 6.f : 0.f;
    case Act::hard_sigmoid_keras2: return (y > 0.f && y < 1.f) ? 0.2f : 0.f;
  }
  return 1.f;
}

// A sequence op's cell, activations, step order and sizes: x (B,T,F), H units, G gates.
struct RnnLayout {
  Cell cell = Cell::simple;
  Act activation = Act::tanh, recurrent_activation = Act::sigmoid;
  bool reset_after = true, go_backwards = false, input_in_processing_order = false, reverse_output = false,
       zero_output_for_mask = false;
  std::int64_t B = 0, T = 0, F = 0, H = 0, G = 1;

  // The input step processing step s reads (a backward layer's input may already come
  // reversed: input_in_processing_order).
  STRATA_HOST_DEVICE std::int64_t x_step(std::int64_t s) const {
    return go_backwards && !input_in_processing_order ? T - 1 - s : s;
  }
  // The mask's step for processing step s: the mask is always in input order.
  STRATA_HOST_DEVICE std::int64_t m_step(std::int64_t s) const { return go_backwards ? T - 1 - s : s; }
  // Where step s's output goes: processing order, or input order with reverse_output.
  STRATA_HOST_DEVICE std::int64_t y_step(std::int64_t s) const { return go_backwards && reverse_output ? T - 1 - s : s; }
  // GRU with reset_after = false: the candidate's recurrent term needs r first, so it is
  // a product of its own.
  STRATA_HOST_DEVICE bool gru_reset_before() const { return cell == Cell::gru && !reset_after; }
  STRATA_HOST_DEVICE std::int64_t K() const { return ws_units(cell) * H; }
  // What a masked processing step s of row b outputs: the previous output, which is the
  // carried h once a step before s was kept, and zeros before that (Keras's TensorFlow
  // backend rnn starts its previous output at zeros, not at the initial state) or with
  // zero_output_for_mask. True where it repeats the carried h. mask: (B, T).
  STRATA_HOST_DEVICE bool masked_step_repeats_h(const float* mask, std::int64_t b, std::int64_t s) const {
    if (zero_output_for_mask) return false;
    for (std::int64_t k = 0; k < s; ++k) {
      if (mask[b * T + m_step(k)] != 0.f) return true;
    }
    return false;
  }
};

// Dropout in the recurrent ops (training only): one mask of `batch` rows of `width` per
// run, fixed across time as in Keras, scaled by 1 / (1 - rate). The input mask (B,F) is
// Philox stream 1, the recurrent mask (B,H) stream 2, keyed on the node's seed; a step's
// masks are numbered in its global batch (a data-parallel shard starting at sample
// `sample_offset` draws a single process's rows), the step's first after the previous
// steps' (global_batch 0: the fed batch is the whole batch).
inline constexpr std::uint64_t kInputMaskStream = 1, kRecurrentMaskStream = 2;

STRATA_HOST_DEVICE inline std::uint64_t dropout_mask_first_counter(std::int64_t step, std::int64_t global_batch,
                                                                   std::int64_t batch, std::int64_t sample_offset,
                                                                   std::int64_t width) {
  const std::int64_t rows = global_batch > 0 ? global_batch : batch;
  return static_cast<std::uint64_t>(step) * static_cast<std::uint64_t>(rows * width) +
         static_cast<std::uint64_t>(sample_offset * width);
}

// The mask's element at Philox counter `counter`: kept (keep_scale) where word 0's uniform
// is >= rate, else 0 — Philox(seed, stream).uniform(counter) >= rate, as core/rng.h draws it.
STRATA_HOST_DEVICE inline float dropout_mask_element(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter,
                                                     float rate, float keep_scale) {
  return philox_uniform(philox4x32_10(counter, stream, seed).w[0]) >= rate ? keep_scale : 0.f;
}

}  // namespace strata::ops
