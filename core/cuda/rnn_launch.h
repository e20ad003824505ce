// Launchers of the recurrent ops' elementwise CUDA kernels (core/cuda/rnn.cu), called by
// core/cuda/rnn_kernels.cc between its cuBLAS products. Plain pointers and sizes only;
// `layout` is the op's cell, activations, step order and sizes (core/ops/rnn_cell.h).
// Every matrix is row-major. Each launcher enqueues on `stream` and returns at once; one
// with nothing to do launches nothing. Launch errors are for the caller to check.
//
// Each step kernel runs a thread per (batch row b, unit j), each the per-element function
// of the same name in core/cuda/rnn_step.h (which describes RnnStep and RnnStepGrad).
#pragma once

#include <cstdint>

#include "core/cuda/rnn_step.h"

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

// Processing step s of a simple_rnn, an LSTM, or a GRU with reset_after.
void launch_rnn_step(const ops::RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream);
// A GRU with reset_after = false, before the product (r·h_in)·U_h: z and r into the
// workspace, r·h_in into reset_h.
void launch_gru_reset_gate(const ops::RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream);
// Then, with the product in the workspace's fourth block: the candidate and the new h.
void launch_gru_candidate(const ops::RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream);

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
