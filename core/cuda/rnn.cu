// The recurrent ops' elementwise CUDA kernels: dropout masks, the gate math of one step
// forward and backward (a thread per batch row and unit, the CPU kernel's loop body in the
// CPU's order, core/ops/rnn_ops.cc), and the bias gradient's column sums. The products
// between them are cuBLAS's (core/cuda/rnn_kernels.cc).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/rnn_launch.h"

namespace strata::cuda {

namespace {

using ops::act;
using ops::Act;
using ops::Cell;
using ops::dact;
using ops::RnnLayout;

__global__ void dropout_mask_kernel(float* mask, std::int64_t n, std::uint64_t seed, std::uint64_t stream,
                                    std::uint64_t first_counter, float rate, float keep_scale) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    mask[i] = ops::dropout_mask_element(seed, stream, first_counter + static_cast<std::uint64_t>(i), rate, keep_scale);
  }
}

__global__ void scale_rows_kernel(const float* in, const float* mask, float* out, std::int64_t rows,
                                  std::int64_t width, std::int64_t per_mask_row) {
  const std::int64_t n = rows * width;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const std::int64_t r = i / width, f = i % width;
    out[i] = in[i] * mask[(r / per_mask_row) * width + f];
  }
}

// Where element (b, j) of processing step s reads and writes.
struct StepSite {
  std::int64_t b, j, t, tm, ys;
  __device__ StepSite(const RnnLayout& L, std::int64_t i, std::int64_t s)
      : b(i / L.H), j(i % L.H), t(L.x_step(s)), tm(L.m_step(s)), ys(L.y_step(s)) {}
};

// The masked step's output and carried h: the new h where the step is kept, else the
// previous h carried over and output (zeros with zero_output_for_mask).
__device__ inline void write_h(const RnnLayout& L, const RnnStep& p, const StepSite& e, float keep, float h_new,
                               float* w) {
  float* hb = p.h + e.b * L.H;
  const float h_prev = hb[e.j];
  p.y[(e.b * L.T + e.ys) * L.H + e.j] = keep != 0.f ? h_new : (L.zero_output_for_mask ? 0.f : h_prev);
  if (keep != 0.f) hb[e.j] = h_new;
  w[L.K() - L.H + e.j] = hb[e.j];
  if (p.next_h_in) p.next_h_in[e.b * L.H + e.j] = hb[e.j] * p.recurrent_mask[e.b * L.H + e.j];
}

__global__ void step_kernel(RnnLayout L, RnnStep p, std::int64_t s) {
  const std::int64_t H = L.H, GH = L.G * L.H, n = L.B * L.H;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const StepSite e(L, i, s);
    const std::int64_t j = e.j;
    const float keep = p.mask ? p.mask[e.b * L.T + e.tm] : 1.f;
    const float* xw = p.xw + (e.b * L.T + e.t) * GH;
    const float* zr = p.rec + e.b * GH;
    float* w = p.workspace + (e.b * L.T + s) * L.K();
    // The input projection with its bias, as the CPU adds them before the loop.
    auto zx = [&](std::int64_t col) { return xw[col] + p.bias[col]; };
    if (L.cell == Cell::simple) {
      const float h_new = act(L.activation, zx(j) + zr[j]);
      w[j] = h_new;
      write_h(L, p, e, keep, h_new, w);
    } else if (L.cell == Cell::lstm) {
      const float ig = act(L.recurrent_activation, zr[j] + zx(j));
      const float fg = act(L.recurrent_activation, zr[H + j] + zx(H + j));
      const float g = act(L.activation, zr[2 * H + j] + zx(2 * H + j));
      const float og = act(L.recurrent_activation, zr[3 * H + j] + zx(3 * H + j));
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
      const float z = act(L.recurrent_activation, zx(j) + zr[j] + rbias[j]);
      const float r = act(L.recurrent_activation, zx(H + j) + zr[H + j] + rbias[H + j]);
      w[j] = z, w[H + j] = r;
      const float rec_h = zr[2 * H + j] + rbias[2 * H + j];
      w[3 * H + j] = rec_h;
      const float hh = act(L.activation, zx(2 * H + j) + r * rec_h);
      w[2 * H + j] = hh;
      const float h_prev = p.h[e.b * H + j];  // Keras: the un-dropped h_tm1
      write_h(L, p, e, keep, z * h_prev + (1.f - z) * hh, w);
    }
  }
}

__global__ void gru_reset_gate_kernel(RnnLayout L, RnnStep p, std::int64_t s) {
  const std::int64_t H = L.H, GH = L.G * L.H, n = L.B * L.H;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const StepSite e(L, i, s);
    const std::int64_t j = e.j;
    const float* xw = p.xw + (e.b * L.T + e.t) * GH;
    const float* zr = p.rec + e.b * GH;
    float* w = p.workspace + (e.b * L.T + s) * L.K();
    // The CPU adds a recurrent bias of 0 here: the same value (up to the sign of a zero).
    const float z = act(L.recurrent_activation, (xw[j] + p.bias[j]) + zr[j] + 0.f);
    const float r = act(L.recurrent_activation, (xw[H + j] + p.bias[H + j]) + zr[H + j] + 0.f);
    w[j] = z, w[H + j] = r;
    p.reset_h[e.b * H + j] = r * p.h_in[e.b * H + j];
  }
}

__global__ void gru_candidate_kernel(RnnLayout L, RnnStep p, std::int64_t s) {
  const std::int64_t H = L.H, GH = L.G * L.H, n = L.B * L.H;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const StepSite e(L, i, s);
    const std::int64_t j = e.j;
    const float keep = p.mask ? p.mask[e.b * L.T + e.tm] : 1.f;
    const float* xw = p.xw + (e.b * L.T + e.t) * GH;
    float* w = p.workspace + (e.b * L.T + s) * L.K();
    const float z = w[j];
    const float hh = act(L.activation, (xw[2 * H + j] + p.bias[2 * H + j]) + w[3 * H + j]);
    w[2 * H + j] = hh;
    const float h_prev = p.h[e.b * H + j];
    write_h(L, p, e, keep, z * h_prev + (1.f - z) * hh, w);
  }
}

__global__ void gate_grad_kernel(RnnLayout L, RnnStepGrad p, std::int64_t s) {
  const std::int64_t H = L.H, GH = L.G * L.H, K = L.K(), n = L.B * L.H;
  const Act A = L.activation, RA = L.recurrent_activation;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
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
    const float gh = keep != 0.f ? dh + dy : 0.f;                                    // into h_new
    float dh_prev = keep != 0.f ? 0.f : dh + (L.zero_output_for_mask ? 0.f : dy);   // carried h
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
}

__global__ void gru_reset_grad_kernel(RnnLayout L, RnnStepGrad p, std::int64_t s) {
  const std::int64_t H = L.H, GH = L.G * L.H, n = L.B * L.H;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const StepSite e(L, i, s);
    const std::int64_t b = e.b, j = e.j;
    const float r = p.workspace[(b * L.T + s) * L.K() + H + j];
    const float d_reset_h = p.reset_h_grad[b * H + j];
    const float dr = d_reset_h * p.h_ins[(b * L.T + s) * H + j] * dact(L.recurrent_activation, r);
    p.gate_grad_x[(b * L.T + e.t) * GH + H + j] = dr;
    p.gate_grad_h[(b * L.T + s) * GH + H + j] = dr;
    p.dh_in[b * H + j] = d_reset_h * r;
  }
}

__global__ void carry_grad_kernel(std::int64_t n, RnnStepGrad p) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    const float dh_in = p.recurrent_mask ? p.dh_in[i] * p.recurrent_mask[i] : p.dh_in[i];
    p.dh[i] = p.dh_prev[i] + dh_in;
  }
}

__global__ void column_sums_kernel(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                   float* out) {
  for (std::int64_t c = first_index(); c < cols; c += grid_stride()) {
    float sum = 0.f;
    for (std::int64_t r = 0; r < rows; ++r) sum += in[r * ld + c];
    out[c] = sum;
  }
}

}  // namespace

void launch_rnn_dropout_mask(float* mask, std::int64_t n, std::uint64_t seed, std::uint64_t stream,
                             std::uint64_t first_counter, float rate, float keep_scale, CUstream_st* cuda_stream) {
  if (n == 0) return;
  dropout_mask_kernel<<<blocks_for(n), kThreads, 0, cuda_stream>>>(mask, n, seed, stream, first_counter, rate,
                                                                     keep_scale);
}

void launch_scale_rows(const float* in, const float* mask, float* out, std::int64_t rows, std::int64_t width,
                       std::int64_t per_mask_row, CUstream_st* stream) {
  if (rows * width == 0) return;
  scale_rows_kernel<<<blocks_for(rows * width), kThreads, 0, stream>>>(in, mask, out, rows, width, per_mask_row);
}

void launch_rnn_step(const RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = layout.B * layout.H;
  if (n == 0) return;
  step_kernel<<<blocks_for(n), kThreads, 0, stream>>>(layout, step, s);
}

void launch_gru_reset_gate(const RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = layout.B * layout.H;
  if (n == 0) return;
  gru_reset_gate_kernel<<<blocks_for(n), kThreads, 0, stream>>>(layout, step, s);
}

void launch_gru_candidate(const RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = layout.B * layout.H;
  if (n == 0) return;
  gru_candidate_kernel<<<blocks_for(n), kThreads, 0, stream>>>(layout, step, s);
}

void launch_rnn_gate_grad(const RnnLayout& layout, const RnnStepGrad& step, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = layout.B * layout.H;
  if (n == 0) return;
  gate_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(layout, step, s);
}

void launch_gru_reset_grad(const RnnLayout& layout, const RnnStepGrad& step, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = layout.B * layout.H;
  if (n == 0) return;
  gru_reset_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(layout, step, s);
}

void launch_rnn_carry_grad(const RnnLayout& layout, const RnnStepGrad& step, CUstream_st* stream) {
  const std::int64_t n = layout.B * layout.H;
  if (n == 0) return;
  carry_grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, step);
}

void launch_column_sums(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* out,
                        CUstream_st* stream) {
  if (cols == 0) return;
  column_sums_kernel<<<blocks_for(cols), kThreads, 0, stream>>>(in, rows, cols, ld, out);
}

}  // namespace strata::cuda
