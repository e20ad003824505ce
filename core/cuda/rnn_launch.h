// Launchers of the recurrent ops' elementwise CUDA kernels (core/cuda/rnn.cu), called by
// core/cuda/rnn_kernels.cc between its cuBLAS products. Plain pointers and sizes only;
// `layout` is the op's cell, activations, step order and sizes (core/ops/rnn_cell.h).
// Every matrix is row-major. Each launcher enqueues on `stream` and returns at once; one
// with nothing to do launches nothing. Launch errors are for the caller to check.
//
// Each step kernel runs a thread per (batch row b, unit j): the CPU kernel's loop body for
// that element (core/ops/rnn_ops.cc), in the CPU's order of operations.
#pragma once

#include <cstdint>

#include "core/ops/rnn_cell.h"

struct CUstream_st;

namespace strata::cuda {

// A dropout mask of n elements: mask[i] = ops::dropout_mask_element(seed, stream,
// first_counter + i, rate, keep_scale).
void launch_rnn_dropout_mask(float* mask, std::int64_t n, std::uint64_t seed, std::uint64_t stream,
                             std::uint64_t first_counter, float rate, float keep_scale, CUstream_st* cuda_stream);

// out[r, f] = in[r, f] * mask[r / per_mask_row, f] for r < rows, f < width (in place
// where out == in): x (B·T, F) times the input mask (B, F), per_mask_row = T.
void launch_scale_rows(const float* in, const float* mask, float* out, std::int64_t rows, std::int64_t width,
                       std::int64_t per_mask_row, CUstream_st* stream);

// What one forward step reads and writes. xw: x·kernel (B·T, G·H) without the bias;
// bias: (G·H), or (2, G·H) for a GRU with reset_after (the second row the recurrent
// bias); rec: the step's h_in·recurrent_kernel (B, G·H); h_in: the step's h after
// recurrent dropout (B, H); mask: (B, T) or null; recurrent_mask: (B, H) or null; h, c:
// the carried state (B, H), updated (c only for an LSTM); next_h_in: where h·recurrent_mask
// goes for the next step, or null without recurrent dropout; reset_h: r·h_in (B, H), for a
// GRU with reset_after = false; workspace (B, T, K) and y (B, T, H): the op's outputs.
struct RnnStep {
  const float* xw = nullptr;
  const float* bias = nullptr;
  const float* rec = nullptr;
  const float* h_in = nullptr;
  const float* mask = nullptr;
  const float* recurrent_mask = nullptr;
  float* h = nullptr;
  float* c = nullptr;
  float* next_h_in = nullptr;
  float* reset_h = nullptr;
  float* workspace = nullptr;
  float* y = nullptr;
};

// Processing step s of a simple_rnn, an LSTM, or a GRU with reset_after.
void launch_rnn_step(const ops::RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream);
// A GRU with reset_after = false, before the product (r·h_in)·U_h: z and r into the
// workspace, r·h_in into reset_h.
void launch_gru_reset_gate(const ops::RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream);
// Then, with the product in the workspace's fourth block: the candidate and the new h.
void launch_gru_candidate(const ops::RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream);

// What one backward step reads and writes. workspace, h0, c0, dy, mask and
// recurrent_mask as the forward pass had them; dh, dc: the gradient reaching the step's
// carried h and c (B, H), dc updated to c_prev's (LSTM); dh_prev: the gradient reaching
// h_prev directly, not through h_in (B, H); gate_grad_x (B·T, G·H) by input step and
// gate_grad_h (B·T, G·H) by processing step: the gate pre-activations' gradients, paired
// with x and with h_in; h_ins (B·T, H): each step's h_in; reset_h_ins (B·T, H): each
// step's r·h_in (GRU reset_after = false); reset_h_grad (B, H): the gradient of r·h_in
// (GRU reset_after = false); dh_in (B, H): the gradient of h_in.
struct RnnStepGrad {
  const float* workspace = nullptr;
  const float* h0 = nullptr;
  const float* c0 = nullptr;
  const float* dy = nullptr;
  const float* mask = nullptr;
  const float* recurrent_mask = nullptr;
  float* dh = nullptr;
  float* dc = nullptr;
  float* dh_prev = nullptr;
  float* gate_grad_x = nullptr;
  float* gate_grad_h = nullptr;
  float* h_ins = nullptr;
  float* reset_h_ins = nullptr;
  const float* reset_h_grad = nullptr;
  float* dh_in = nullptr;
};

// The gate gradients of processing step s (all but r's for a GRU with reset_after =
// false), h_in, and the direct gradient to h_prev (and c_prev).
void launch_rnn_gate_grad(const ops::RnnLayout& layout, const RnnStepGrad& step, std::int64_t s, CUstream_st* stream);
// A GRU with reset_after = false, from reset_h_grad = d(r·h_in): r's gate gradient (in
// both gate gradients) and dh_in = reset_h_grad · r, before the z and r columns' product
// adds to it.
void launch_gru_reset_grad(const ops::RnnLayout& layout, const RnnStepGrad& step, std::int64_t s, CUstream_st* stream);
// dh = dh_prev + dh_in · recurrent_mask (or dh_in alone without it): the gradient
// reaching the previous step's carried h.
void launch_rnn_carry_grad(const ops::RnnLayout& layout, const RnnStepGrad& step, CUstream_st* stream);

// out[c] = the sum of column c of in (rows, cols) with row stride ld, rows in order.
void launch_column_sums(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* out,
                        CUstream_st* stream);

}  // namespace strata::cuda
