// The CPU kernels of the fused recurrent ops (core/ops/rnn_ops.cc describes them): the
// whole time loop of a SimpleRNN, LSTM or GRU cell, forward and backward through time.
//
// x·kernel for every step is one GEMM before the loop; h·recurrent_kernel is one GEMM
// per step; the gate math is fused per batch row.
// Temporaries (the input projection, per-thread states, gate gradients, dropout masks)
// live in per-thread scratch (core/cpu/scratch.h): a steady-state step allocates nothing.
// The CUDA kernels (core/cuda/rnn_kernels.h) share the cells' math, the workspace layout
// and the dropout rule with this file (core/ops/rnn_cell.h) and read the attributes
// through the same Config (core/ops/rnn_config.h).
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/cpu/gemm.h"
#include "core/cpu/gemv.h"
#include "core/cpu/kernels/cell_activation.h"
#include "core/cpu/kernels/packed_kernel.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/packed_gemm.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/cpu/vector_math.h"
#include "core/op_registry.h"
#include "core/ops/rnn_cell.h"
#include "core/ops/rnn_config.h"

namespace strata::cpu {

namespace {

using ops::act;
using ops::Act;
using ops::Cell;
using ops::Config;
using ops::dact;
using ops::dropout_mask_element;
using ops::dropout_mask_first_counter;
using ops::kInputMaskStream;
using ops::kRecurrentMaskStream;
using ops::ws_units;

using RowMajor = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using CMap = Eigen::Map<const RowMajor>;
using MMap = Eigen::Map<RowMajor>;
using Stride = Eigen::OuterStride<>;
using CSMap = Eigen::Map<const RowMajor, 0, Stride>;
using MSMap = Eigen::Map<RowMajor, 0, Stride>;

// Scratch slots (core/cpu/scratch.h): those held by the calling thread around the
// parallel loops, then those each thread uses inside them. All distinct.
enum Slot : int {
  kDropoutMask, kRecurrentMask, kProjection, kDroppedInput, kGateGradX, kGateGradH, kStateIn, kResetState,
  kRowH, kRowC, kRowHin, kRowRec, kRowTmp1, kRowTmp2, kRowWorkspace,
};
static_assert(kRowWorkspace < cpu::kScratchSlots);

float* slot_scratch(Slot slot, std::int64_t floats) { return cpu::scratch(slot, static_cast<std::size_t>(floats)); }

// Eigen's own GEMM threading busy-waits between threads, which is slow for the many
// small products of a time loop. Eigen runs single-threaded (set once for the process,
// core/cpu/parallel.cc: setting it per kernel would race between concurrent runs) and
// the kernels split the large products over the shared pool themselves.
// out = a · b, the columns of out split over threads.
template <typename Out, typename A, typename B>
void parallel_gemm(Out out, const A& a, const B& b) {
  const std::int64_t n = out.cols();
  const bool big = a.rows() * a.cols() * n >= (std::int64_t{1} << 18);
  cpu::parallel_for(n, [&](std::int64_t c0, std::int64_t c1) {
    out.middleCols(c0, c1 - c0).noalias() = a * b.middleCols(c0, c1 - c0);
  }, big ? 16 : n + 1);
}

// Rows per thread worth a fork: a row costs about T·H·G·H multiply-adds per pass.
std::int64_t row_threshold(std::int64_t T, std::int64_t H, std::int64_t GH) {
  const std::int64_t work = std::max<std::int64_t>(T * H * GH, 1);
  return std::max<std::int64_t>(2, (std::int64_t{1} << 20) / work * 2);
}

// Dropout masks (scaled by 1/(1-rate)), fixed across time, in scratch `slot`; null
// when inactive.
// One mask of `batch` rows of `width` per step, numbered in the step's global batch (a
// data-parallel shard starting at ctx.sample_offset draws a single process's rows).
const float* dropout_mask(const Config& c, const KernelContext& ctx, float rate, std::int64_t batch,
                          std::int64_t width, std::uint64_t stream, Slot slot) {
  if (!ctx.training || rate <= 0.f) return nullptr;
  const std::int64_t n = batch * width;
  float* m = slot_scratch(slot, n);
  const std::uint64_t base = dropout_mask_first_counter(ctx.step, ctx.global_batch, batch, ctx.sample_offset, width);
  const float scale = 1.f / (1.f - rate);
  for (std::int64_t i = 0; i < n; ++i) {
    m[i] = dropout_mask_element(c.seed, stream, base + static_cast<std::uint64_t>(i), rate, scale);
  }
  return m;
}


// rec (rows × cols) = hin (rows × H) · U (H × cols, row stride ld) for one thread's rows
// at one step: the matrix-vector kernel for one row, the packed U for more (per step, the
// product Eigen's GEMM took 44% of an LSTM's time in, packing U's blocks on every call).
void recurrent_product(std::int64_t rows, std::int64_t H, std::int64_t cols, const float* hin, const float* U,
                       std::int64_t ld, const PackedB* packed, float* rec) {
  if (rows == 1 && gemv_available()) return gemv_row(cols, H, hin, 1, U, ld, rec);
  if (packed) return packed_gemm_prepacked(rows, hin, H, *packed, rec, cols, false);
  gemm_serial(false, false, rows, cols, H, hin, H, U, ld, rec, cols, false);
}

// One batch row's LSTM step, a register of units at a time through every gate: the gate
// pre-activations (the recurrent product zr plus the input projection zx), the new c and
// h, the output yb and the carried state hb, cb (kept where the mask m is 0; a masked
// step outputs hb where `repeat_h`, else zeros: RnnLayout::masked_step_repeats_h), and, when a
// backward pass reads it, the workspace row w (null otherwise). As separate passes over
// the row, with a copy of each into the workspace, the gate math took a quarter of an
// LSTM(128)'s time at batch 32; units past H in the last register are padding.
void lstm_row(const Config& c, std::int64_t H, float m, bool repeat_h, const float* __restrict zx,
              const float* __restrict zr, float* __restrict w, float* __restrict hb, float* __restrict cb,
              float* __restrict yb) {
  using simd::kLanes;
  using simd::Vec;
  const bool keep = m != 0.f, zero_output = !keep && !repeat_h;
  auto step = [&](std::int64_t j, std::int64_t n) __attribute__((always_inline)) {
    auto load = [&](const float* p) {
      if (n == kLanes) return simd::load(p + j);
      float part[kLanes] = {};
      std::memcpy(part, p + j, static_cast<std::size_t>(n) * sizeof(float));
      return simd::load(part);
    };
    auto store = [&](float* p, Vec v) {
      if (n == kLanes) return simd::store(p + j, v);
      float part[kLanes];
      simd::store(part, v);
      std::memcpy(p + j, part, static_cast<std::size_t>(n) * sizeof(float));
    };
    const Vec i = act_vector(c.recurrent_activation, load(zr) + load(zx));
    const Vec f = act_vector(c.recurrent_activation, load(zr + H) + load(zx + H));
    const Vec g = act_vector(c.activation, load(zr + 2 * H) + load(zx + 2 * H));
    const Vec o = act_vector(c.recurrent_activation, load(zr + 3 * H) + load(zx + 3 * H));
    const Vec c_new = f * load(cb) + i * g;
    const Vec act_c = act_vector(c.activation, c_new);
    const Vec h_new = o * act_c;
    if (keep) {
      store(hb, h_new);
      store(cb, c_new);
      store(yb, h_new);
    } else {
      store(yb, zero_output ? Vec{} : load(hb));
    }
    if (w) {
      store(w, i), store(w + H, f), store(w + 2 * H, g), store(w + 3 * H, o);
      store(w + 4 * H, act_c);  // read by the backward pass
      store(w + 5 * H, load(cb)), store(w + 6 * H, load(hb));
    }
  };
  std::int64_t j = 0;
  for (; j + kLanes <= H; j += kLanes) step(j, kLanes);
  if (j < H) step(j, H - j);
}

// ---- forward ------------------------------------------------------------------------------

void sequence_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::int64_t H = ctx.input(4).shape()[0];
  const bool has_mask = ctx.inputs.size() == 7;
  Config c(ctx.node, x.shape(), H, has_mask);
  const std::int64_t B = c.B, T = c.T, F = c.F, G = c.G, GH = G * H, K = ws_units(c.cell) * H;
  const float* px = x.data<float>();
  const float* W = ctx.input(3).data<float>();
  const float* U = ctx.input(4).data<float>();
  const float* bias = ctx.input(5).data<float>();
  const float* mask = has_mask ? ctx.input(6).data<float>() : nullptr;
  float* y = ctx.output(0).data<float>();
  float* h_last = ctx.output(1).data<float>();
  float* c_last = ctx.output(2).data<float>();
  float* ws = ctx.output(3).data<float>();
  const bool keep_workspace = ctx.output_read(3);
  const float* dmask = dropout_mask(c, ctx, c.dropout, B, F, kInputMaskStream, kDropoutMask);
  const float* rmask = dropout_mask(c, ctx, c.recurrent_dropout, B, H, kRecurrentMaskStream, kRecurrentMask);

  // Input projection for every step at once: xw = (x * dropout) · W + input bias.
  // One cpu::gemm over all B·T rows (threaded, packed): as Eigen's products split by
  // columns it was a tenth of the LSTM's time.
  MMap xw(slot_scratch(kProjection, B * T * GH), B * T, GH);
  if (!dmask) {
    cpu::gemm(false, false, B * T, GH, F, px, F, W, GH, xw.data(), GH);
  } else {
    MMap xd(slot_scratch(kDroppedInput, B * T * F), B * T, F);
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t f = 0; f < F; ++f) xd(b * T + t, f) = px[(b * T + t) * F + f] * dmask[b * F + f];
    cpu::gemm(false, false, B * T, GH, F, xd.data(), F, W, GH, xw.data(), GH);
  }
  xw.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, GH);
  const float* rbias = (c.cell == Cell::gru && c.reset_after) ? bias + GH : nullptr;

  // Batch rows are independent: each thread runs its rows through every step, so the
  // loop has no barrier per step. Each row chunk does its own h·U GEMM per step.
  const float* h0 = ctx.input(1).data<float>();
  const float* c0 = ctx.input(2).data<float>();
  // U packed whole, except for a GRU with the reset gate before the product, whose
  // per-step product takes U's first 2H columns only.
  const bool whole_u = !(c.cell == Cell::gru && !c.reset_after);
  // Packed on the run it changed: every step of the time loop multiplies by it.
  PackedKernel* cache = whole_u ? PackedKernel::of(ctx) : nullptr;
  const PackedB* packed_u = cache ? cache->for_run(ctx.input(4), H, GH, PackedKernel::When::kAtOnce) : nullptr;
  cpu::parallel_for(B, [&](std::int64_t b0, std::int64_t b1) {
    const std::int64_t nb = b1 - b0;
    MMap h(slot_scratch(kRowH, nb * H), nb, H), cs(slot_scratch(kRowC, nb * H), nb, H);
    h = CMap(h0 + b0 * H, nb, H);
    cs = CMap(c0 + b0 * H, nb, H);
    MMap hin(slot_scratch(kRowHin, nb * H), nb, H), rec(slot_scratch(kRowRec, nb * GH), nb, GH);
    float* rh = slot_scratch(kRowTmp1, H);
    // Without a backward pass to read the workspace (an inference program), the LSTM's
    // step writes none; the other cells' steps write it to one row of scratch, which
    // stays in cache: the workspace of an LSTM(128) at batch 32 over 50 steps is 5.7 MB
    // written and never read (7% of its time).
    float* scratch_workspace = keep_workspace ? nullptr : slot_scratch(kRowWorkspace, K);
    for (std::int64_t s = 0; s < T; ++s) {
      const std::int64_t t = c.x_step(s), tm = c.m_step(s);
      hin = h;
      if (rmask) hin.array() *= CMap(rmask + b0 * H, nb, H).array();
      if (c.cell == Cell::gru && !c.reset_after) {
        // z and r columns now; the candidate's recurrent term needs r first.
        rec.leftCols(2 * H).noalias() = hin * CSMap(U, H, 2 * H, Stride(GH));
      } else {
        recurrent_product(nb, H, GH, hin.data(), U, GH, packed_u, rec.data());
      }
      for (std::int64_t b = b0; b < b1; ++b) {
        const std::int64_t lb = b - b0;
        const float m = mask ? mask[b * T + tm] : 1.f;
        const float* zx = xw.data() + (b * T + t) * GH;
        const float* zr = rec.data() + lb * GH;
        float* w = keep_workspace ? ws + (b * T + s) * K : scratch_workspace;
        float* hb = h.data() + lb * H;
        float* cb = cs.data() + lb * H;
        float* yb = y + (b * T + c.y_step(s)) * H;
        const bool repeat_h = m == 0.f && c.masked_step_repeats_h(mask, b, s);
        if (c.cell == Cell::simple) {
          for (std::int64_t j = 0; j < H; ++j) {
            float hn = act(c.activation, zx[j] + zr[j]);
            w[j] = hn;
            float hc = m != 0.f ? hn : hb[j];
            yb[j] = m != 0.f ? hn : (repeat_h ? hb[j] : 0.f);
            hb[j] = hc;
            w[H + j] = hc;
          }
        } else if (c.cell == Cell::lstm) {
          lstm_row(c, H, m, repeat_h, zx, zr, keep_workspace ? w : nullptr, hb, cb, yb);
        } else {  // GRU, gates [z, r, h]
          const float* hi = hin.data() + lb * H;
          for (std::int64_t j = 0; j < H; ++j) {
            const float bz = rbias ? rbias[j] : 0.f, br = rbias ? rbias[H + j] : 0.f;
            float z = act(c.recurrent_activation, zx[j] + zr[j] + bz);
            float r = act(c.recurrent_activation, zx[H + j] + zr[H + j] + br);
            w[j] = z, w[H + j] = r;
            if (c.reset_after) w[3 * H + j] = zr[2 * H + j] + rbias[2 * H + j];
            rh[j] = r * hi[j];
          }
          if (!c.reset_after) {
            // (r * h_in) · U_h for this row.
            Eigen::Map<Eigen::RowVectorXf>(w + 3 * H, H).noalias() =
                Eigen::Map<const Eigen::RowVectorXf>(rh, H) * CSMap(U + 2 * H, H, H, Stride(GH));
          }
          for (std::int64_t j = 0; j < H; ++j) {
            float r = w[H + j], z = w[j];
            float pre = c.reset_after ? zx[2 * H + j] + r * w[3 * H + j] : zx[2 * H + j] + w[3 * H + j];
            float hh = act(c.activation, pre);
            w[2 * H + j] = hh;
            float hn = z * hb[j] + (1.f - z) * hh;  // Keras: the un-dropped h_tm1
            yb[j] = m != 0.f ? hn : (repeat_h ? hb[j] : 0.f);
            if (m != 0.f) hb[j] = hn;
            w[4 * H + j] = hb[j];
          }
        }
      }
    }
    std::copy_n(h.data(), nb * H, h_last + b0 * H);
    if (c.cell == Cell::lstm) {
      std::copy_n(cs.data(), nb * H, c_last + b0 * H);
    } else {
      std::fill_n(c_last + b0 * H, nb * H, 0.f);
    }
  }, row_threshold(T, H, GH));
}

// ---- backward through time -------------------------------------------------------------

void sequence_grad_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const std::int64_t H = ctx.input(4).shape()[0];
  const bool has_mask = ctx.inputs.size() == 11;
  Config c(ctx.node, x.shape(), H, has_mask);
  const std::int64_t B = c.B, T = c.T, F = c.F, G = c.G, GH = G * H, K = ws_units(c.cell) * H;
  const float* px = x.data<float>();
  const float* h0 = ctx.input(1).data<float>();
  const float* c0 = ctx.input(2).data<float>();
  const float* W = ctx.input(3).data<float>();
  const float* U = ctx.input(4).data<float>();
  const float* ws = ctx.input(6).data<float>();
  const float* dy = ctx.input(7).data<float>();
  const float* mask = has_mask ? ctx.input(10).data<float>() : nullptr;
  const float* dmask = dropout_mask(c, ctx, c.dropout, B, F, kInputMaskStream, kDropoutMask);
  const float* rmask = dropout_mask(c, ctx, c.recurrent_dropout, B, H, kRecurrentMaskStream, kRecurrentMask);
  const bool gru_before = c.cell == Cell::gru && !c.reset_after;

  MMap dzx(slot_scratch(kGateGradX, B * T * GH), B * T, GH);  // by input step t: pairs with x
  MMap dzr(slot_scratch(kGateGradH, B * T * GH), B * T, GH);  // by processing step s: pairs with h_in
  MMap hins(slot_scratch(kStateIn, B * T * H), B * T, H);     // h_in (recurrent-dropped h_prev) by processing step
  MMap rhs(gru_before ? slot_scratch(kResetState, B * T * H) : nullptr, gru_before ? B * T : 0, H);  // r * h_in
  float* dh0_out = ctx.output(1).data<float>();
  float* dc0_out = ctx.output(2).data<float>();
  // As in the forward pass, each thread takes its batch rows through every step.
  cpu::parallel_for(B, [&](std::int64_t b0, std::int64_t b1) {
    const std::int64_t nb = b1 - b0;
    MMap dh(slot_scratch(kRowH, nb * H), nb, H), dc(slot_scratch(kRowC, nb * H), nb, H);
    dh = CMap(ctx.input(8).data<float>() + b0 * H, nb, H);
    dc = CMap(ctx.input(9).data<float>() + b0 * H, nb, H);
    MMap dh_prev(slot_scratch(kRowHin, nb * H), nb, H), dhin(slot_scratch(kRowTmp1, nb * H), nb, H),
        drh(slot_scratch(kRowTmp2, nb * H), nb, H);
    for (std::int64_t s = T - 1; s >= 0; --s) {
      const std::int64_t t = c.x_step(s), tm = c.m_step(s);
      // Gate gradients for this step, and the direct paths to h_prev / c_prev.
      for (std::int64_t b = b0; b < b1; ++b) {
        const std::int64_t lb = b - b0;
        const float m = mask ? mask[b * T + tm] : 1.f;
        const float* w = ws + (b * T + s) * K;
        const float* hp = s > 0 ? ws + (b * T + s - 1) * K + (K - H) : h0 + b * H;
        const float* dyb = dy + (b * T + c.y_step(s)) * H;
        float* gx = dzx.data() + (b * T + t) * GH;
        float* gr = dzr.data() + (b * T + s) * GH;
        float* dhb = dh.data() + lb * H;
        float* dcb = dc.data() + lb * H;
        float* dpb = dh_prev.data() + lb * H;
        float* hi = hins.data() + (b * T + s) * H;
        for (std::int64_t j = 0; j < H; ++j) hi[j] = rmask ? hp[j] * rmask[b * H + j] : hp[j];
        const bool repeat_h = m == 0.f && c.masked_step_repeats_h(mask, b, s);
        for (std::int64_t j = 0; j < H; ++j) {
          const float gh = m != 0.f ? dhb[j] + dyb[j] : 0.f;               // into h_new
          dpb[j] = m != 0.f ? 0.f : dhb[j] + (repeat_h ? dyb[j] : 0.f);    // carried h
          if (c.cell == Cell::simple) {
            gx[j] = gr[j] = gh * dact(c.activation, w[j]);
          } else if (c.cell == Cell::lstm) {
            const float i = w[j], f = w[H + j], g = w[2 * H + j], o = w[3 * H + j], ac = w[4 * H + j];
            const float cp = s > 0 ? ws[(b * T + s - 1) * K + 5 * H + j] : c0[b * H + j];
            const float gc = m != 0.f ? dcb[j] + gh * o * dact(c.activation, ac) : 0.f;
            gx[j] = gc * g * dact(c.recurrent_activation, i);
            gx[H + j] = gc * cp * dact(c.recurrent_activation, f);
            gx[2 * H + j] = gc * i * dact(c.activation, g);
            gx[3 * H + j] = gh * ac * dact(c.recurrent_activation, o);
            for (int k = 0; k < 4; ++k) gr[k * H + j] = gx[k * H + j];
            dcb[j] = m != 0.f ? gc * f : dcb[j];
          } else {
            const float z = w[j], r = w[H + j], hh = w[2 * H + j], rec_h = w[3 * H + j];
            const float dpre = gh * (1.f - z) * dact(c.activation, hh);
            gx[j] = gr[j] = gh * (hp[j] - hh) * dact(c.recurrent_activation, z);
            dpb[j] += gh * z;
            gx[2 * H + j] = dpre;
            if (c.reset_after) {
              gx[H + j] = gr[H + j] = dpre * rec_h * dact(c.recurrent_activation, r);
              gr[2 * H + j] = dpre * r;
            } else {
              gr[2 * H + j] = dpre;  // pairs with r * h_in
              rhs(b * T + s, j) = r * hi[j];
            }
            dhin(lb, j) = 0.f;
          }
        }
      }
      auto gr_s = Eigen::Map<RowMajor, 0, Stride>(dzr.data() + (b0 * T + s) * GH, nb, GH, Stride(T * GH));
      if (gru_before) {
        // d(r*h_in) = dpre · U_hᵀ; then r's gradient, then the z/r columns' recurrent term.
        drh.noalias() = gr_s.rightCols(H) * CSMap(U + 2 * H, H, H, Stride(GH)).transpose();
        for (std::int64_t b = b0; b < b1; ++b) {
          const std::int64_t lb = b - b0;
          const float* w = ws + (b * T + s) * K;
          for (std::int64_t j = 0; j < H; ++j) {
            const float dr = drh(lb, j) * hins(b * T + s, j) * dact(c.recurrent_activation, w[H + j]);
            dzx(b * T + t, H + j) = dr;
            gr_s(lb, H + j) = dr;
            dhin(lb, j) += drh(lb, j) * w[H + j];
          }
        }
        dhin.noalias() += gr_s.leftCols(2 * H) * CSMap(U, H, 2 * H, Stride(GH)).transpose();
      } else if (c.cell == Cell::gru) {
        dhin.noalias() += gr_s * CMap(U, H, GH).transpose();
      } else {
        dhin.noalias() = gr_s * CMap(U, H, GH).transpose();
      }
      if (rmask) dhin.array() *= CMap(rmask + b0 * H, nb, H).array();
      dh = dh_prev + dhin;
    }
    std::copy_n(dh.data(), nb * H, dh0_out + b0 * H);
    if (c.cell == Cell::lstm) {
      std::copy_n(dc.data(), nb * H, dc0_out + b0 * H);
    } else {
      std::fill_n(dc0_out + b0 * H, nb * H, 0.f);
    }
  }, row_threshold(T, H, GH));
  // Weight gradients: one GEMM each over all steps.
  Tensor& dx = ctx.output(0);
  MMap dxm(dx.data<float>(), B * T, F);
  parallel_gemm(dxm, dzx, CMap(W, F, GH).transpose());
  MMap dW(ctx.output(3).data<float>(), F, GH);
  if (!dmask) {
    parallel_gemm(dW, CMap(px, B * T, F).transpose(), dzx);
  } else {
    MMap xd(slot_scratch(kDroppedInput, B * T * F), B * T, F);
    for (std::int64_t r = 0; r < B * T; ++r)
      for (std::int64_t f = 0; f < F; ++f) {
        const float mk = dmask[(r / T) * F + f];
        xd(r, f) = px[r * F + f] * mk;
        dxm(r, f) *= mk;
      }
    parallel_gemm(dW, xd.transpose(), dzx);
  }
  MMap dU(ctx.output(4).data<float>(), H, GH);
  if (gru_before) {
    parallel_gemm(dU.leftCols(2 * H), hins.transpose(), dzr.leftCols(2 * H));
    parallel_gemm(dU.rightCols(H), rhs.transpose(), dzr.rightCols(H));
  } else {
    parallel_gemm(dU, hins.transpose(), dzr);
  }
  float* db = ctx.output(5).data<float>();
  Eigen::Map<Eigen::RowVectorXf>(db, GH) = dzx.colwise().sum();
  if (c.cell == Cell::gru && c.reset_after) Eigen::Map<Eigen::RowVectorXf>(db + GH, GH) = dzr.colwise().sum();
}

void zero_state_kernel(KernelContext& ctx) { std::fill_n(ctx.output(0).data<float>(), ctx.output(0).size(), 0.f); }

}  // namespace

void register_rnn_kernels(OpRegistry& r) {
  r.add_kernel("rnn_sequence", DeviceType::cpu, {.run = sequence_kernel});
  r.add_kernel("rnn_sequence_grad", DeviceType::cpu, {.run = sequence_grad_kernel});
  r.add_kernel("rnn_zero_state", DeviceType::cpu, {.run = zero_state_kernel});
}

}  // namespace strata::cpu
