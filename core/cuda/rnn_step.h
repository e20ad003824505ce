// The recurrent CUDA kernels' work per element, as functions that compile for the host
// and for CUDA devices alike: each kernel of core/cuda/rnn.cu is a grid-stride loop over
// one of these, and tests/core/cuda_rnn_plan_test.cc runs them on the host, in the order
// core/cuda/rnn_plan.h gives, against the CPU kernel (core/cpu/kernels/rnn.cc), in every
// build. Element i of a step is (batch row i / H, unit i % H): the CPU kernel's loop body
// for that element, in the CPU's order of operations. Plain C++17 (no CUDA header).
#pragma once

#include <cstdint>

#include "core/ops/rnn_cell.h"

namespace strata::cuda {

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


// out[i] = in[i] * mask[(row / per_mask_row) * width + column] for element i of a
// (rows, width) matrix: x (B·T, F) times the input mask (B, F) with per_mask_row = T.
STRATA_HOST_DEVICE inline void scale_rows_element(const float* in, const float* mask, float* out, std::int64_t width,
                                                  std::int64_t per_mask_row, std::int64_t i) {
  const std::int64_t r = i / width, f = i % width;
  out[i] = in[i] * mask[(r / per_mask_row) * width + f];
}

// The sum of column c of in (rows, ld-strided), rows in order.
STRATA_HOST_DEVICE inline float column_sum(const float* in, std::int64_t rows, std::int64_t ld, std::int64_t c) {
  float sum = 0.f;
  for (std::int64_t r = 0; r < rows; ++r) sum += in[r * ld + c];
  return sum;
}

// Where element i of processing step s reads and writes.
struct StepSite {
  std::int64_t b, j, s, t, tm, ys;
  STRATA_HOST_DEVICE StepSite(const ops::RnnLayout& L, std::int64_t i, std::int64_t step)
      : b(i / L.H), j(i % L.H), s(step), t(L.x_step(step)), tm(L.m_step(step)), ys(L.y_step(step)) {}
};

// The input projection's column `col` with its bias, as the CPU adds them before the loop.
STRATA_HOST_DEVICE inline float projected(const RnnStep& p, const float* xw_row, std::int64_t col) {
  return xw_row[col] + p.bias[col];
}

// The masked step's output and carried h: the new h where the step is kept, else the
// previous h carried over, and output where a step before was kept (zeros before, or with
// zero_output_for_mask: RnnLayout::masked_step_repeats_h); then the next step's h_in
// under recurrent dropout.
STRATA_HOST_DEVICE inline void write_h(const ops::RnnLayout& L, const RnnStep& p, const StepSite& e, float keep,
                                       float h_new, float* w) {
  float* hb = p.h + e.b * L.H;
  const float h_prev = hb[e.j];
  p.y[(e.b * L.T + e.ys) * L.H + e.j] =
      keep != 0.f ? h_new : (L.masked_step_repeats_h(p.mask, e.b, e.s) ? h_prev : 0.f);
  if (keep != 0.f) hb[e.j] = h_new;
  w[L.K() - L.H + e.j] = hb[e.j];
  if (p.next_h_in) p.next_h_in[e.b * L.H + e.j] = hb[e.j] * p.recurrent_mask[e.b * L.H + e.j];
}

// Processing step s of a simple_rnn, an LSTM, or a GRU with reset_after, with rec = the
// step's h_in · recurrent_kernel.
STRATA_HOST_DEVICE inline void step_element(const ops::RnnLayout& L, const RnnStep& p, std::int64_t s,
                                            std::int64_t i) {
  using ops::act;
  using ops::Cell;
  const std::int64_t H = L.H, GH = L.G * L.H;
  const StepSite e(L, i, s);
  const std::int64_t j = e.j;
  const float keep = p.mask ? p.mask[e.b * L.T + e.tm] : 1.f;
  const float* xw = p.xw + (e.b * L.T + e.t) * GH;
  const float* zr = p.rec + e.b * GH;
  float* w = p.workspace + (e.b * L.T + s) * L.K();
  if (L.cell == Cell::simple) {
    const float h_new = act(L.activation, projected(p, xw, j) + zr[j]);
    w[j] = h_new;
    write_h(L, p, e, keep, h_new, w);
  } else if (L.cell == Cell::lstm) {
    const float ig = act(L.recurrent_activation, zr[j] + projected(p, xw, j));
    const float fg = act(L.recurrent_activation, zr[H + j] + projected(p, xw, H + j));
    const float g = act(L.activation, zr[2 * H + j] + projected(p, xw, 2 * H + j));
    const float og = act(L.recurrent_activation, zr[3 * H + j] + projected(p, xw, 3 * H + j));
    w[j] = ig, w[H + j] = fg, w[2 * H + j] = g, w[3 * H + j] = og;
    float* cb = p.c + e.b * H;
    const float c_new = fg * cb[j] + ig * g;
    const float c_act = act(L.activation, c_new);
    w[4 * H + j] = c_act;
    if (keep != 0.f) cb[j] = c_new;
    w[5 * H + j] = cb[j];
    write_h(L, p, e, keep, og * c_act, w);
  } else {  // GRU with reset_after, gates [z, r, h]; the second bias row is the recurrent one
    const float* rbias = p.bias + GH;
    const float z = act(L.recurrent_activation, projected(p, xw, j) + zr[j] + rbias[j]);
    const float r = act(L.recurrent_activation, projected(p, xw, H + j) + zr[H + j] + rbias[H + j]);
    w[j] = z, w[H + j] = r;
    const float rec_h = zr[2 * H + j] + rbias[2 * H + j];
    w[3 * H + j] = rec_h;
    const float hh = act(L.activation, projected(p, xw, 2 * H + j) + r * rec_h);
    w[2 * H + j] = hh;
    const float h_prev = p.h[e.b * H + j];  // Keras: the un-dropped h_tm1
    write_h(L, p, e, keep, z * h_prev + (1.f - z) * hh, w);
  }
}

// A GRU with reset_after = false, before the product (r·h_in)·U_h, with rec holding the z
// and r columns of h_in · recurrent_kernel: z and r into the workspace, r·h_in into reset_h.
STRATA_HOST_DEVICE inline void gru_reset_gate_element(const ops::RnnLayout& L, const RnnStep& p, std::int64_t s,
                                                      std::int64_t i) {
  const std::int64_t H = L.H, GH = L.G * L.H;
  const StepSite e(L, i, s);
  const std::int64_t j = e.j;
  const float* xw = p.xw + (e.b * L.T + e.t) * GH;
  const float* zr = p.rec + e.b * GH;
  float* w = p.workspace + (e.b * L.T + s) * L.K();
  // The CPU adds a recurrent bias of 0 here: the same value (up to the sign of a zero).
  const float z = ops::act(L.recurrent_activation, projected(p, xw, j) + zr[j] + 0.f);
  const float r = ops::act(L.recurrent_activation, projected(p, xw, H + j) + zr[H + j] + 0.f);
  w[j] = z, w[H + j] = r;
  p.reset_h[e.b * H + j] = r * p.h_in[e.b * H + j];
}

// Then, with (r·h_in)·U_h in the workspace's fourth block: the candidate and the new h.
STRATA_HOST_DEVICE inline void gru_candidate_element(const ops::RnnLayout& L, const RnnStep& p, std::int64_t s,
                                                     std::int64_t i) {
  const std::int64_t H = L.H, GH = L.G * L.H;
  const StepSite e(L, i, s);
  const std::int64_t j = e.j;
  const float keep = p.mask ? p.mask[e.b * L.T + e.tm] : 1.f;
  const float* xw = p.xw + (e.b * L.T + e.t) * GH;
  float* w = p.workspace + (e.b * L.T + s) * L.K();
  const float z = w[j];
  const float hh = ops::act(L.activation, projected(p, xw, 2 * H + j) + w[3 * H + j]);
  w[2 * H + j] = hh;
  const float h_prev = p.h[e.b * H + j];
  write_h(L, p, e, keep, z * h_prev + (1.f - z) * hh, w);
}

// The gate gradients of processing step s (all but r's for a GRU with reset_after =
// false), h_in, and the direct gradient to h_prev (and c_prev, updating dc).
STRATA_HOST_DEVICE inline void gate_grad_element(const ops::RnnLayout& L, const RnnStepGrad& p, std::int64_t s,
                                                 std::int64_t i) {
  using ops::Cell;
  using ops::dact;
  const std::int64_t H = L.H, GH = L.G * L.H, K = L.K();
  const ops::Act A = L.activation, RA = L.recurrent_activation;
  const StepSite e(L, i, s);
  const std::int64_t b = e.b, j = e.j;
  const float keep = p.mask ? p.mask[b * L.T + e.tm] : 1.f;
  const float* w = p.workspace + (b * L.T + s) * K;
  const float* hp = s > 0 ? p.workspace + (b * L.T + s - 1) * K + (K - H) : p.h0 + b * H;
  const float dy = p.dy[(b * L.T + e.ys) * H + j];
  float* gx = p.gate_grad_x + (b * L.T + e.t) * GH;
  float* gr = p.gate_grad_h + (b * L.T + s) * GH;
  const float dh = p.dh[b * H + j];
  const float h_in = p.recurrent_mask ? hp[j] * p.recurrent_mask[b * H + j] : hp[j];
  p.h_ins[(b * L.T + s) * H + j] = h_in;
  const float gh = keep != 0.f ? dh + dy : 0.f;                                   // into h_new
  float dh_prev = keep != 0.f ? 0.f : dh + (L.masked_step_repeats_h(p.mask, b, s) ? dy : 0.f);  // carried h
  if (L.cell == Cell::simple) {
    gx[j] = gr[j] = gh * dact(A, w[j]);
  } else if (L.cell == Cell::lstm) {
    const float ig = w[j], fg = w[H + j], g = w[2 * H + j], og = w[3 * H + j], c_act = w[4 * H + j];
    const float c_prev = s > 0 ? p.workspace[(b * L.T + s - 1) * K + 5 * H + j] : p.c0[b * H + j];
    float* dc = p.dc + b * H + j;
    const float gc = keep != 0.f ? *dc + gh * og * dact(A, c_act) : 0.f;
    gx[j] = gc * g * dact(RA, ig);
    gx[H + j] = gc * c_prev * dact(RA, fg);
    gx[2 * H + j] = gc * ig * dact(A, g);
    gx[3 * H + j] = gh * c_act * dact(RA, og);
    for (int k = 0; k < 4; ++k) gr[k * H + j] = gx[k * H + j];
    if (keep != 0.f) *dc = gc * fg;
  } else {
    const float z = w[j], r = w[H + j], hh = w[2 * H + j], rec_h = w[3 * H + j];
    const float dpre = gh * (1.f - z) * dact(A, hh);
    gx[j] = gr[j] = gh * (hp[j] - hh) * dact(RA, z);
    dh_prev += gh * z;
    gx[2 * H + j] = dpre;
    if (L.reset_after) {
      gx[H + j] = gr[H + j] = dpre * rec_h * dact(RA, r);
      gr[2 * H + j] = dpre * r;
    } else {
      gr[2 * H + j] = dpre;  // pairs with r * h_in
      p.reset_h_ins[(b * L.T + s) * H + j] = r * h_in;
    }
  }
  p.dh_prev[b * H + j] = dh_prev;
}

// A GRU with reset_after = false, from reset_h_grad = d(r·h_in): r's gate gradient (in
// both gate gradients) and dh_in = reset_h_grad · r, before the z and r columns' product
// adds to it.
STRATA_HOST_DEVICE inline void gru_reset_grad_element(const ops::RnnLayout& L, const RnnStepGrad& p, std::int64_t s,
                                                      std::int64_t i) {
  const std::int64_t H = L.H, GH = L.G * L.H;
  const StepSite e(L, i, s);
  const std::int64_t b = e.b, j = e.j;
  const float r = p.workspace[(b * L.T + s) * L.K() + H + j];
  const float d_reset_h = p.reset_h_grad[b * H + j];
  const float dr = d_reset_h * p.h_ins[(b * L.T + s) * H + j] * ops::dact(L.recurrent_activation, r);
  p.gate_grad_x[(b * L.T + e.t) * GH + H + j] = dr;
  p.gate_grad_h[(b * L.T + s) * GH + H + j] = dr;
  p.dh_in[b * H + j] = d_reset_h * r;
}

// dh = dh_prev + dh_in · recurrent_mask (dh_in alone without it), element i of (B, H):
// the gradient reaching the previous step's carried h.
STRATA_HOST_DEVICE inline void carry_grad_element(const RnnStepGrad& p, std::int64_t i) {
  const float dh_in = p.recurrent_mask ? p.dh_in[i] * p.recurrent_mask[i] : p.dh_in[i];
  p.dh[i] = p.dh_prev[i] + dh_in;
}

}  // namespace strata::cuda
