// The order of the recurrent CUDA kernels' work, written once over the device that does
// it: which scratch arrays, which products on which rows (every T-th row of a (B, T, ...)
// tensor is one strided operand), which per-element kernels, in sequence_kernel's and
// sequence_grad_kernel's order (core/cpu/kernels/rnn.cc). core/cuda/rnn_kernels.cc runs
// it with cuBLAS and the kernels of core/cuda/rnn.cu; tests/core/cuda_rnn_plan_test.cc
// runs it on the host with plain loops over the same per-element functions
// (core/cuda/rnn_step.h), against the CPU kernel, in every build.
//
// A Device provides:
//   std::vector<float*> scratch(std::initializer_list<std::int64_t> floats)  (null for 0)
//   gemm(m, n, k, GemmOperand a, GemmOperand b, float* c, ldc, beta)         (core/cuda/gemm.h)
//   copy(float* to, const float* from, n), zero(float* to, n)
//   dropout_mask(mask, n, seed, stream, first_counter, rate, keep_scale)
//   scale_rows(in, mask, out, rows, width, per_mask_row)
//   step, gru_reset_gate, gru_candidate (layout, RnnStep, s)
//   gate_grad, gru_reset_grad (layout, RnnStepGrad, s); carry_grad(layout, RnnStepGrad)
//   column_sums(in, rows, cols, ld, out)
// each doing what the launcher of that name in core/cuda/rnn_launch.h does.
#pragma once

#include <cstdint>
#include <vector>

#include "core/cuda/gemm.h"
#include "core/cuda/rnn_step.h"
#include "core/op_registry.h"
#include "core/ops/rnn_config.h"

namespace strata::cuda {

// The dropout masks a run draws (the CPU kernel's: core/cpu/kernels/rnn.cc, dropout_mask).
struct RnnDropout {
  bool input = false, recurrent = false;
  float input_rate = 0.f, recurrent_rate = 0.f;
  std::uint64_t seed = 0;
  std::uint64_t input_first = 0, recurrent_first = 0;  // Philox counters of each mask's element 0
};

inline RnnDropout rnn_dropout(const KernelContext& ctx, const ops::Config& c) {
  RnnDropout d;
  d.input = ctx.training && c.dropout > 0.f;
  d.recurrent = ctx.training && c.recurrent_dropout > 0.f;
  d.input_rate = c.dropout;
  d.recurrent_rate = c.recurrent_dropout;
  d.seed = c.seed;
  d.input_first = ops::dropout_mask_first_counter(ctx.step, ctx.global_batch, c.B, ctx.sample_offset, c.F);
  d.recurrent_first = ops::dropout_mask_first_counter(ctx.step, ctx.global_batch, c.B, ctx.sample_offset, c.H);
  return d;
}

// rnn_sequence's inputs (mask null without one) and outputs, on the device.
struct RnnForwardIO {
  const float *x, *h0, *c0, *kernel, *recurrent_kernel, *bias, *mask;
  float *y, *h, *c, *workspace;
};

// rnn_sequence_grad's inputs (mask null without one) and outputs, on the device.
struct RnnBackwardIO {
  const float *x, *h0, *c0, *kernel, *recurrent_kernel, *workspace, *dy, *dh, *dc, *mask;
  float *dx, *dh0, *dc0, *dkernel, *drecurrent_kernel, *dbias;
};

template <class Device>
void draw_masks(Device& dev, const ops::RnnLayout& L, const RnnDropout& d, float* input_mask, float* recurrent_mask) {
  if (d.input) {
    dev.dropout_mask(input_mask, L.B * L.F, d.seed, ops::kInputMaskStream, d.input_first, d.input_rate,
                     1.f / (1.f - d.input_rate));
  }
  if (d.recurrent) {
    dev.dropout_mask(recurrent_mask, L.B * L.H, d.seed, ops::kRecurrentMaskStream, d.recurrent_first,
                     d.recurrent_rate, 1.f / (1.f - d.recurrent_rate));
  }
}

template <class Device>
void run_rnn_forward(Device& dev, const ops::RnnLayout& L, const RnnDropout& d, const RnnForwardIO& io) {
  const std::int64_t B = L.B, T = L.T, F = L.F, H = L.H, GH = L.G * L.H, K = L.K();
  if (B * H == 0) return;  // every output is empty
  const bool reset_before = L.gru_reset_before();
  const std::vector<float*> s = dev.scratch({d.input ? B * F : 0, d.input ? B * T * F : 0, B * T * GH, B * GH,
                                             d.recurrent ? B * H : 0, d.recurrent ? B * H : 0,
                                             reset_before ? B * H : 0});
  float *input_mask = s[0], *dropped_x = s[1], *projection = s[2], *rec = s[3], *recurrent_mask = s[4],
        *h_in = s[5], *reset_h = s[6];
  draw_masks(dev, L, d, input_mask, recurrent_mask);

  // The carried state lives in the last-state outputs.
  dev.copy(io.h, io.h0, B * H);
  if (L.cell == ops::Cell::lstm) {
    dev.copy(io.c, io.c0, B * H);
  } else {
    dev.zero(io.c, B * H);
  }
  // Input projection for every step at once: (x * dropout) · W; the step kernels add the
  // bias, as the CPU adds it before the loop.
  if (d.input) dev.scale_rows(io.x, input_mask, dropped_x, B * T, F, T);
  dev.gemm(B * T, GH, F, {d.input ? dropped_x : io.x, F}, {io.kernel, GH}, projection, GH, 0.f);
  if (d.recurrent) dev.scale_rows(io.h, recurrent_mask, h_in, B, H, 1);
  const RnnStep step{.xw = projection,
                     .bias = io.bias,
                     .rec = rec,
                     .h_in = d.recurrent ? h_in : io.h,
                     .mask = io.mask,
                     .recurrent_mask = recurrent_mask,
                     .h = io.h,
                     .c = io.c,
                     .next_h_in = d.recurrent ? h_in : nullptr,
                     .reset_h = reset_h,
                     .workspace = io.workspace,
                     .y = io.y};
  for (std::int64_t t = 0; t < T; ++t) {
    if (reset_before) {
      // z and r columns first; the candidate's recurrent term needs r.
      dev.gemm(B, 2 * H, H, {step.h_in, H}, {io.recurrent_kernel, GH}, rec, GH, 0.f);
      dev.gru_reset_gate(L, step, t);
      // (r * h_in) · U_h straight into each row's fourth workspace block: rows T·K apart.
      dev.gemm(B, H, H, {reset_h, H}, {io.recurrent_kernel + 2 * H, GH}, io.workspace + t * K + 3 * H, T * K, 0.f);
      dev.gru_candidate(L, step, t);
    } else {
      dev.gemm(B, GH, H, {step.h_in, H}, {io.recurrent_kernel, GH}, rec, GH, 0.f);
      dev.step(L, step, t);
    }
  }
}

template <class Device>
void run_rnn_backward(Device& dev, const ops::RnnLayout& L, const RnnDropout& d, const RnnBackwardIO& io) {
  const std::int64_t B = L.B, T = L.T, F = L.F, H = L.H, GH = L.G * L.H;
  const bool reset_before = L.gru_reset_before();
  // gate_grad_x by input step t pairs with x; gate_grad_h by processing step s with h_in.
  const std::vector<float*> s = dev.scratch({d.input ? B * F : 0, d.input ? B * T * F : 0, d.recurrent ? B * H : 0,
                                             B * T * GH, B * T * GH, B * T * H, reset_before ? B * T * H : 0, B * H,
                                             B * H, reset_before ? B * H : 0});
  float *input_mask = s[0], *dropped_x = s[1], *recurrent_mask = s[2];
  draw_masks(dev, L, d, input_mask, recurrent_mask);

  // The gradients reaching each step's carried h and c live in dh0's and dc0's outputs.
  dev.copy(io.dh0, io.dh, B * H);
  if (L.cell == ops::Cell::lstm) {
    dev.copy(io.dc0, io.dc, B * H);
  } else {
    dev.zero(io.dc0, B * H);
  }
  const RnnStepGrad step{.workspace = io.workspace,
                         .h0 = io.h0,
                         .c0 = io.c0,
                         .dy = io.dy,
                         .mask = io.mask,
                         .recurrent_mask = recurrent_mask,
                         .dh = io.dh0,
                         .dc = io.dc0,
                         .dh_prev = s[7],
                         .gate_grad_x = s[3],
                         .gate_grad_h = s[4],
                         .h_ins = s[5],
                         .reset_h_ins = s[6],
                         .reset_h_grad = s[9],
                         .dh_in = s[8]};
  const float* U = io.recurrent_kernel;
  // Without rows there is nothing to carry back through time (and the gate gradients'
  // scratch is null: no offset may be taken from it).
  for (std::int64_t t = B > 0 ? T - 1 : -1; t >= 0; --t) {
    dev.gate_grad(L, step, t);
    // Rows b of step t's gate gradients: every T-th row from row t.
    const GemmOperand gr{step.gate_grad_h + t * GH, T * GH};
    if (reset_before) {
      // d(r*h_in) = dpre · U_hᵀ; then r's gradient, then the z/r columns' recurrent term.
      dev.gemm(B, H, H, {gr.data + 2 * H, gr.ld}, {U + 2 * H, GH, true}, s[9], H, 0.f);
      dev.gru_reset_grad(L, step, t);
      dev.gemm(B, H, 2 * H, gr, {U, GH, true}, step.dh_in, H, 1.f);
    } else {
      dev.gemm(B, H, GH, gr, {U, GH, true}, step.dh_in, H, 0.f);
    }
    dev.carry_grad(L, step);
  }
  // Weight gradients: one product each over all steps.
  dev.gemm(B * T, F, GH, {step.gate_grad_x, GH}, {io.kernel, GH, true}, io.dx, F, 0.f);
  if (d.input) {
    dev.scale_rows(io.x, input_mask, dropped_x, B * T, F, T);
    dev.scale_rows(io.dx, input_mask, io.dx, B * T, F, T);
  }
  dev.gemm(F, GH, B * T, {d.input ? dropped_x : io.x, F, true}, {step.gate_grad_x, GH}, io.dkernel, GH, 0.f);
  if (reset_before) {
    dev.gemm(H, 2 * H, B * T, {step.h_ins, H, true}, {step.gate_grad_h, GH}, io.drecurrent_kernel, GH, 0.f);
    dev.gemm(H, H, B * T, {step.reset_h_ins, H, true}, {step.gate_grad_h + 2 * H, GH}, io.drecurrent_kernel + 2 * H,
             GH, 0.f);
  } else {
    dev.gemm(H, GH, B * T, {step.h_ins, H, true}, {step.gate_grad_h, GH}, io.drecurrent_kernel, GH, 0.f);
  }
  dev.column_sums(step.gate_grad_x, B * T, GH, GH, io.dbias);
  if (L.cell == ops::Cell::gru && L.reset_after) dev.column_sums(step.gate_grad_h, B * T, GH, GH, io.dbias + GH);
}

}  // namespace strata::cuda
