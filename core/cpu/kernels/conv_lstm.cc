// The CPU kernels of conv_lstm_recurrence (core/ops/conv_lstm_ops.h): a ConvLSTM's time
// loop, forward and backward through time, over as many steps as the run feeds.
//
// The recurrent convolution ("same", strides 1) is a GEMM of the state's patches
// (im2col: (batch · positions, window · filters)) with the recurrent kernel, whose
// (window..., filters, 4 · filters) layout is already that matrix; its gradients are the
// two other products of the same matrices, the input's gathered back from the patches
// (each state element sums the patch entries that read it, so threads never write the
// same element). The gate arithmetic is the fused recurrent ops' (core/ops/rnn_cell.h).
// Temporaries live in per-thread scratch (core/cpu/scratch.h): after the first run, a
// step allocates nothing.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>

#include "core/cpu/gemm.h"
#include "core/cpu/kernels/cell_activation.h"
#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/cpu/scratch.h"
#include "core/op_registry.h"
#include "core/ops/conv_lstm_ops.h"
#include "core/ops/rnn_cell.h"
#include "core/ops/rnn_config.h"

namespace strata::cpu {

namespace {

using ops::Act;

// Scratch slots (core/cpu/scratch.h): those the calling thread holds through a run, then
// those each thread uses inside the parallel loops. All distinct, so that a run after the
// first allocates nothing.
enum Slot : int {
  kCols, kConv, kGradZ, kGradCols, kKernelStep, kPrevH, kPrevC, kGradH, kGradC, kGradOutput,
  kRowGates, kRowCell, kRowSum,
};
static_assert(kRowSum < kScratchSlots);

float* slot_scratch(Slot slot, std::int64_t floats) { return scratch(slot, static_cast<std::size_t>(floats)); }
using ops::dact;

// The op's sizes: xz (B, T, S..., 4F) with up to three spatial axes S (P positions), the
// recurrent kernel's window (W taps), and Keras's "same" padding before each axis.
struct Geometry {
  std::int64_t B = 0, T = 0, P = 1, F = 0, W = 1;
  std::array<std::int64_t, 3> size{1, 1, 1}, window{1, 1, 1}, pad{0, 0, 0};

  Geometry(const Shape& xz, const Shape& kernel) : B(xz[0]), T(xz[1]), F(kernel[kernel.rank() - 2]) {
    const int spatial = xz.rank() - 3;
    for (int a = 0; a < spatial; ++a) {
      const auto k = static_cast<std::size_t>(3 - spatial + a);  // right-aligned: unused axes lead, size 1
      size[k] = xz[2 + a];
      window[k] = kernel[a];
      pad[k] = (kernel[a] - 1) / 2;  // TensorFlow's "same" with strides 1: the smaller half before
      P *= size[k];
      W *= window[k];
    }
  }
  std::int64_t rows() const { return B * P; }   // (batch, position) pairs
  std::int64_t patch() const { return W * F; }  // one row of patches
};

// Calls f(w, q) for each tap w of the window around position p whose source position q
// lies inside the state (taps reading the zero padding are skipped).
template <typename Fn>
void for_each_tap(const Geometry& g, std::int64_t p, Fn&& f) {
  const std::int64_t p0 = p / (g.size[1] * g.size[2]), p1 = p / g.size[2] % g.size[1], p2 = p % g.size[2];
  std::int64_t w = 0;
  for (std::int64_t k0 = 0; k0 < g.window[0]; ++k0) {
    const std::int64_t q0 = p0 + k0 - g.pad[0];
    for (std::int64_t k1 = 0; k1 < g.window[1]; ++k1) {
      const std::int64_t q1 = p1 + k1 - g.pad[1];
      for (std::int64_t k2 = 0; k2 < g.window[2]; ++k2, ++w) {
        const std::int64_t q2 = p2 + k2 - g.pad[2];
        if (q0 < 0 || q0 >= g.size[0] || q1 < 0 || q1 >= g.size[1] || q2 < 0 || q2 >= g.size[2]) continue;
        f(w, (q0 * g.size[1] + q1) * g.size[2] + q2);
      }
    }
  }
}

// cols (rows × patch): row (b, p) holds the state (times `scale` where given) at each tap
// of p's window, zeros where the tap reads the padding.
void im2col(const Geometry& g, const float* state, const float* scale, float* cols) {
  const std::int64_t F = g.F, patch = g.patch();
  parallel_for(g.rows(), [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t b = r / g.P, p = r % g.P;
      float* row = cols + r * patch;
      std::fill_n(row, patch, 0.f);
      for_each_tap(g, p, [&](std::int64_t w, std::int64_t q) {
        const std::int64_t src = (b * g.P + q) * F;
        for (std::int64_t j = 0; j < F; ++j) row[w * F + j] = scale ? state[src + j] * scale[src + j] : state[src + j];
      });
    }
  }, threshold_for(patch));
}

// state += scale · (the patches' gradient gathered back): the element at q sums the
// entries of every row whose window reads q. Each thread writes its own rows of state.
// The windows are symmetric under "same" padding only for odd sizes, so the readers of q
// are found from q's own window mirrored: p = q − (k − pad).
void col2im_add(const Geometry& g, const float* dcols, const float* scale, float* state) {
  const std::int64_t F = g.F, patch = g.patch();
  parallel_for(g.rows(), [&](std::int64_t r0, std::int64_t r1) {
    float* sum = slot_scratch(kRowSum, F);
    for (std::int64_t r = r0; r < r1; ++r) {
      const std::int64_t b = r / g.P, q = r % g.P;
      const std::int64_t q0 = q / (g.size[1] * g.size[2]), q1 = q / g.size[2] % g.size[1], q2 = q % g.size[2];
      std::fill_n(sum, F, 0.f);
      std::int64_t w = 0;
      for (std::int64_t k0 = 0; k0 < g.window[0]; ++k0) {
        const std::int64_t p0 = q0 - k0 + g.pad[0];
        for (std::int64_t k1 = 0; k1 < g.window[1]; ++k1) {
          const std::int64_t p1 = q1 - k1 + g.pad[1];
          for (std::int64_t k2 = 0; k2 < g.window[2]; ++k2, ++w) {
            const std::int64_t p2 = q2 - k2 + g.pad[2];
            if (p0 < 0 || p0 >= g.size[0] || p1 < 0 || p1 >= g.size[1] || p2 < 0 || p2 >= g.size[2]) continue;
            const float* src = dcols + (b * g.P + (p0 * g.size[1] + p1) * g.size[2] + p2) * patch + w * F;
            for (std::int64_t j = 0; j < F; ++j) sum[j] += src[j];
          }
        }
      }
      float* dst = state + r * F;
      for (std::int64_t j = 0; j < F; ++j) dst[j] += scale ? scale[r * F + j] * sum[j] : sum[j];
    }
  }, threshold_for(patch));
}

// The node's inputs, read once.
struct Inputs {
  ops::ConvLSTMRecurrenceSlots slots;
  Geometry g;
  Act activation, recurrent_activation;
  bool go_backwards, zero_output_for_mask;
  const float* xz;  // the gradient op takes it too, unread
  const float* kernel;
  const float *h0 = nullptr, *c0 = nullptr, *recurrent_masks = nullptr, *mask = nullptr;
  bool mask_per_position = false;

  explicit Inputs(const KernelContext& ctx)
      : slots(ctx.node.attrs),
        g(ctx.input(0).shape(), ctx.input(1).shape()),
        activation(ops::act_of(ctx.node.attrs.get<std::string>("activation"))),
        recurrent_activation(ops::act_of(ctx.node.attrs.get<std::string>("recurrent_activation"))),
        go_backwards(ctx.node.attrs.get_or<bool>("go_backwards", false)),
        zero_output_for_mask(ctx.node.attrs.get_or<bool>("zero_output_for_mask", false)),
        xz(ctx.input(0).data<float>()),
        kernel(ctx.input(1).data<float>()) {
    if (slots.h0 >= 0) {
      h0 = ctx.input(slots.h0).data<float>();
      c0 = ctx.input(slots.c0).data<float>();
    }
    if (slots.recurrent_masks >= 0) recurrent_masks = ctx.input(slots.recurrent_masks).data<float>();
    if (slots.mask >= 0) {
      mask = ctx.input(slots.mask).data<float>();
      mask_per_position = ctx.input(slots.mask).shape().rank() > 2;
    }
  }
  // Input step t of processing step s.
  std::int64_t input_step(std::int64_t s) const { return go_backwards ? g.T - 1 - s : s; }
  bool kept(std::int64_t b, std::int64_t t, std::int64_t p) const {
    if (!mask) return true;
    return mask[mask_per_position ? (b * g.T + t) * g.P + p : b * g.T + t] != 0.f;
  }
  const float* gate_mask(int gate) const {
    return recurrent_masks ? recurrent_masks + static_cast<std::int64_t>(gate) * g.rows() * g.F : nullptr;
  }
};

// conv (rows × 4F) = the recurrent convolution of state, each gate's through its dropout
// mask where there are masks.
void recurrent_product(const Inputs& in, const float* state, float* cols, float* conv) {
  const Geometry& g = in.g;
  const std::int64_t F = g.F, G = 4 * F, patch = g.patch();
  if (!in.recurrent_masks) {
    im2col(g, state, nullptr, cols);
    gemm(false, false, g.rows(), G, patch, cols, patch, in.kernel, G, conv, G);
    return;
  }
  for (int gate = 0; gate < 4; ++gate) {
    im2col(g, state, in.gate_mask(gate), cols);
    gemm(false, false, g.rows(), F, patch, cols, patch, in.kernel + gate * F, G, conv + gate * F, G);
  }
}

void conv_lstm_recurrence_kernel(KernelContext& ctx) {
  const Inputs in(ctx);
  const Geometry& g = in.g;
  const std::int64_t F = g.F, G = 4 * F, K = ops::kConvLSTMWorkspaceUnits * F, rows = g.rows();
  float* y = ctx.output(0).data<float>();
  float* last = ctx.output(1).data<float>();
  float* h = ctx.output(2).data<float>();
  float* c = ctx.output(3).data<float>();
  float* ws = ctx.output(4).data<float>();
  const auto state_floats = static_cast<std::size_t>(rows * F);
  if (in.h0) {
    std::copy_n(in.h0, state_floats, h);
    std::copy_n(in.c0, state_floats, c);
  } else {
    std::fill_n(h, state_floats, 0.f);
    std::fill_n(c, state_floats, 0.f);
  }
  std::fill_n(last, state_floats, 0.f);  // the output before any step (masked steps repeat it)
  if (rows == 0 || g.T == 0) return;
  float* cols = slot_scratch(kCols, rows * g.patch());
  float* conv = slot_scratch(kConv, rows * G);
  for (std::int64_t s = 0; s < g.T; ++s) {
    const std::int64_t t = in.input_step(s);
    recurrent_product(in, h, cols, conv);
    parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
      float* gate = slot_scratch(kRowGates, G);
      float* cell = slot_scratch(kRowCell, 2 * F);
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t b = r / g.P, p = r % g.P;
        const float* x = in.xz + ((b * g.T + t) * g.P + p) * G;
        const float* z = conv + r * G;
        float* w = ws + ((b * g.T + s) * g.P + p) * K;
        float* out = y + ((b * g.T + s) * g.P + p) * F;
        const bool kept = in.kept(b, t, p);
        // The gates (i, f, candidate, o) and then activation(c') a register at a time: libm's
        // tanh and exp per element took a fifth of the step.
        for (std::int64_t k = 0; k < G; ++k) gate[k] = x[k] + z[k];
        for (int q = 0; q < 4; ++q) act_in_place(q == 2 ? in.activation : in.recurrent_activation, gate + q * F, F);
        float *c_next = cell, *act_c = cell + F;
        for (std::int64_t j = 0; j < F; ++j) act_c[j] = c_next[j] = gate[F + j] * c[r * F + j] + gate[j] * gate[2 * F + j];
        act_in_place(in.activation, act_c, F);
        for (std::int64_t j = 0; j < F; ++j) {
          const float i = gate[j], f = gate[F + j], cand = gate[2 * F + j], o = gate[3 * F + j];
          const float c_new = c_next[j], ac = act_c[j];
          const float h_new = o * ac;
          if (kept) {
            c[r * F + j] = c_new;
            h[r * F + j] = h_new;
            last[r * F + j] = h_new;
          } else if (in.zero_output_for_mask) {
            last[r * F + j] = 0.f;
          }
          out[j] = last[r * F + j];
          w[j] = i;
          w[F + j] = f;
          w[2 * F + j] = cand;
          w[3 * F + j] = o;
          w[4 * F + j] = ac;
          w[5 * F + j] = c[r * F + j];
          w[6 * F + j] = h[r * F + j];
        }
      }
    }, threshold_for(16 * F));
  }
}

void conv_lstm_recurrence_grad_kernel(KernelContext& ctx) {
  const Inputs in(ctx);
  const Geometry& g = in.g;
  const std::int64_t F = g.F, G = 4 * F, K = ops::kConvLSTMWorkspaceUnits * F, rows = g.rows(), patch = g.patch();
  const int first = in.slots.count;
  const float* ws = ctx.input(first).data<float>();
  const float* dy = ctx.input(first + 1).data<float>();
  const float* dlast = ctx.input(first + 2).data<float>();
  const float* dh_in = ctx.input(first + 3).data<float>();
  const float* dc_in = ctx.input(first + 4).data<float>();
  float* dxz = ctx.output(0).data<float>();
  float* dkernel = ctx.output(1).data<float>();
  const auto state_floats = static_cast<std::size_t>(rows * F);
  // The gradients reaching the carried h and c, and the previous step's output (a masked
  // step outputs it again), from the steps after the current one.
  float* dh = slot_scratch(kGradH, rows * F);
  float* dc = slot_scratch(kGradC, rows * F);
  float* dout = slot_scratch(kGradOutput, rows * F);
  std::copy_n(dh_in, state_floats, dh);
  std::copy_n(dc_in, state_floats, dc);
  std::fill_n(dout, state_floats, 0.f);
  std::fill_n(dkernel, ctx.output(1).size(), 0.f);
  if (rows > 0 && g.T > 0) {
    float* dz = slot_scratch(kGradZ, rows * G);
    float* cols = slot_scratch(kCols, rows * patch);
    float* dcols = slot_scratch(kGradCols, rows * patch);
    float* dkernel_step = slot_scratch(kKernelStep, patch * G);
    float* h_prev = slot_scratch(kPrevH, rows * F);
    float* c_prev = slot_scratch(kPrevC, rows * F);
    for (std::int64_t s = g.T - 1; s >= 0; --s) {
      const std::int64_t t = in.input_step(s);
      // The states this step started from: the previous step's carried ones, or the initial.
      parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t b = r / g.P, p = r % g.P;
          for (std::int64_t j = 0; j < F; ++j) {
            const std::size_t e = static_cast<std::size_t>(r * F + j);
            if (s > 0) {
              const float* w = ws + ((b * g.T + s - 1) * g.P + p) * K;
              h_prev[e] = w[6 * F + j];
              c_prev[e] = w[5 * F + j];
            } else {
              h_prev[e] = in.h0 ? in.h0[e] : 0.f;
              c_prev[e] = in.c0 ? in.c0[e] : 0.f;
            }
          }
        }
      }, threshold_for(F));
      parallel_for(rows, [&](std::int64_t r0, std::int64_t r1) {
        for (std::int64_t r = r0; r < r1; ++r) {
          const std::int64_t b = r / g.P, p = r % g.P;
          const float* w = ws + ((b * g.T + s) * g.P + p) * K;
          const float* dys = dy + ((b * g.T + s) * g.P + p) * F;
          float* dzr = dz + r * G;
          const bool kept = in.kept(b, t, p);
          for (std::int64_t j = 0; j < F; ++j) {
            const std::size_t e = static_cast<std::size_t>(r * F + j);
            const float d_out = dys[j] + dout[e] + (s == g.T - 1 ? dlast[e] : 0.f);
            if (!kept) {  // h and c passed through; the output repeated the previous one
              dout[e] = in.zero_output_for_mask ? 0.f : d_out;
              for (int gate = 0; gate < 4; ++gate) dzr[gate * F + j] = 0.f;
              continue;  // dh and dc flow on to the previous step unchanged
            }
            dout[e] = 0.f;
            const float i = w[j], f = w[F + j], cand = w[2 * F + j], o = w[3 * F + j], ac = w[4 * F + j];
            const float dh_new = d_out + dh[e];
            const float dc_new = dc[e] + dh_new * o * dact(in.activation, ac);
            dzr[j] = dc_new * cand * dact(in.recurrent_activation, i);
            dzr[F + j] = dc_new * c_prev[e] * dact(in.recurrent_activation, f);
            dzr[2 * F + j] = dc_new * i * dact(in.activation, cand);
            dzr[3 * F + j] = dh_new * ac * dact(in.recurrent_activation, o);
            dc[e] = dc_new * f;
            dh[e] = 0.f;  // the recurrent convolution's gradient is added below
          }
          std::copy_n(dzr, G, dxz + ((b * g.T + t) * g.P + p) * G);
        }
      }, threshold_for(16 * F));
      // h_prev's gradient through the recurrent convolution, and the kernel's.
      if (!in.recurrent_masks) {
        gemm(false, true, rows, patch, G, dz, G, in.kernel, G, dcols, patch);
        col2im_add(g, dcols, nullptr, dh);
        im2col(g, h_prev, nullptr, cols);
        gemm(true, false, patch, G, rows, cols, patch, dz, G, dkernel_step, G);
      } else {
        for (int gate = 0; gate < 4; ++gate) {
          gemm(false, true, rows, patch, F, dz + gate * F, G, in.kernel + gate * F, G, dcols, patch);
          col2im_add(g, dcols, in.gate_mask(gate), dh);
          im2col(g, h_prev, in.gate_mask(gate), cols);
          gemm(true, false, patch, F, rows, cols, patch, dz + gate * F, G, dkernel_step + gate * F, G);
        }
      }
      for (std::int64_t k = 0; k < patch * G; ++k) dkernel[k] += dkernel_step[k];
    }
  }
  if (in.slots.h0 >= 0) {
    std::copy_n(dh, state_floats, ctx.output(2).data<float>());
    std::copy_n(dc, state_floats, ctx.output(3).data<float>());
  }
}

}  // namespace

void register_conv_lstm_kernels(OpRegistry& r) {
  r.add_kernel("conv_lstm_recurrence", DeviceType::cpu, {.run = conv_lstm_recurrence_kernel});
  r.add_kernel("conv_lstm_recurrence_grad", DeviceType::cpu, {.run = conv_lstm_recurrence_grad_kernel});
}

}  // namespace strata::cpu
