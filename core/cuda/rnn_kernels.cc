// Host side of the recurrent ops' CUDA kernels: the CPU kernel's Config (core/ops/
// rnn_config.h), scratch carved from the run context's workspace, then per step a cuBLAS
// product and the fused gate kernels (core/cuda/rnn.cu), in sequence_kernel's and
// sequence_grad_kernel's order (core/ops/rnn_ops.cc).
#include "core/cuda/rnn_kernels.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/gemm.h"
#include "core/cuda/rnn_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/rnn_config.h"

namespace strata::cuda {

namespace {

using ops::Cell;
using ops::Config;

// A kernel call's float arrays in one block of the run context's workspace, each 256-byte
// aligned: every part is reserved first, then the block is asked for once (the workspace
// may move when it grows, core/cuda/workspace.h). A part of no floats is null.
class Scratch {
 public:
  int reserve(std::int64_t floats) {
    offsets_.push_back(floats > 0 ? static_cast<std::ptrdiff_t>(bytes_) : -1);
    bytes_ += (static_cast<std::size_t>(floats > 0 ? floats : 0) * sizeof(float) + 255) / 256 * 256;
    return static_cast<int>(offsets_.size()) - 1;
  }
  void allocate(RunContext& run) {
    if (bytes_ > 0) base_ = static_cast<char*>(run.workspace().get(bytes_));
  }
  float* operator[](int part) const {
    const std::ptrdiff_t at = offsets_[static_cast<std::size_t>(part)];
    return at < 0 ? nullptr : reinterpret_cast<float*>(base_ + at);
  }

 private:
  std::vector<std::ptrdiff_t> offsets_;
  std::size_t bytes_ = 0;
  char* base_ = nullptr;
};

void copy_floats(const KernelContext& ctx, float* to, const float* from, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  check(cudaMemcpyAsync(to, from, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream), ctx,
        "cudaMemcpyAsync");
}

void zero_floats(const KernelContext& ctx, float* to, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  check(cudaMemsetAsync(to, 0, static_cast<std::size_t>(n) * sizeof(float), stream), ctx, "cudaMemsetAsync");
}

// Whether a dropout of `rate` is drawn in this run (the CPU kernel's test).
bool drops(const KernelContext& ctx, float rate) { return ctx.training && rate > 0.f; }

// The CPU kernel's dropout mask (core/ops/rnn_ops.cc, dropout_mask): `batch` rows of
// `width`, numbered in the step's global batch.
void draw_mask(const KernelContext& ctx, const Config& c, float rate, std::int64_t batch, std::int64_t width,
               std::uint64_t stream, float* mask, CUstream_st* cuda_stream) {
  const std::uint64_t first =
      ops::dropout_mask_first_counter(ctx.step, ctx.global_batch, batch, ctx.sample_offset, width);
  launch_rnn_dropout_mask(mask, batch * width, c.seed, stream, first, rate, 1.f / (1.f - rate), cuda_stream);
}

}  // namespace

void rnn_zero_state(KernelContext& ctx) {
  const RunContext& run = run_context(ctx);
  zero_floats(ctx, floats(ctx.output(0)), ctx.output(0).size(), run.stream().get());
}

void rnn_sequence(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  const std::int64_t H = ctx.input(4).shape()[0];
  const Config c(ctx.node, x.shape(), H, ctx.inputs.size() == 7);
  const std::int64_t B = c.B, T = c.T, F = c.F, GH = c.G * H, K = c.K();
  if (B * H == 0) return;  // every output is empty
  const float* W = floats(ctx.input(3));
  const float* U = floats(ctx.input(4));
  float* h = floats(ctx.output(1));  // the carried state lives in the last-state outputs
  float* cs = floats(ctx.output(2));
  float* ws = floats(ctx.output(3));
  const bool input_dropout = drops(ctx, c.dropout), recurrent_dropout = drops(ctx, c.recurrent_dropout);

  Scratch scratch;
  const int input_mask = scratch.reserve(input_dropout ? B * F : 0);
  const int dropped_x = scratch.reserve(input_dropout ? B * T * F : 0);
  const int projection = scratch.reserve(B * T * GH);
  const int rec = scratch.reserve(B * GH);
  const int recurrent_mask = scratch.reserve(recurrent_dropout ? B * H : 0);
  const int h_in = scratch.reserve(recurrent_dropout ? B * H : 0);
  const int reset_h = scratch.reserve(c.gru_reset_before() ? B * H : 0);
  scratch.allocate(run);

  copy_floats(ctx, h, floats(ctx.input(1)), B * H, stream);
  if (c.cell == Cell::lstm) {
    copy_floats(ctx, cs, floats(ctx.input(2)), B * H, stream);
  } else {
    zero_floats(ctx, cs, B * H, stream);
  }
  // Input projection for every step at once: (x * dropout) · W; the bias is added in the
  // step kernels, as the CPU adds it before the loop.
  const float* projected = floats(x);
  if (input_dropout) {
    draw_mask(ctx, c, c.dropout, B, F, ops::kInputMaskStream, scratch[input_mask], stream);
    launch_scale_rows(floats(x), scratch[input_mask], scratch[dropped_x], B * T, F, T, stream);
    projected = scratch[dropped_x];
  }
  gemm(ctx, run, B * T, GH, F, {projected, F}, {W, GH}, scratch[projection], GH);
  if (recurrent_dropout) {
    draw_mask(ctx, c, c.recurrent_dropout, B, H, ops::kRecurrentMaskStream, scratch[recurrent_mask], stream);
    launch_scale_rows(h, scratch[recurrent_mask], scratch[h_in], B, H, 1, stream);
  }
  const RnnStep step{.xw = scratch[projection],
                     .bias = floats(ctx.input(5)),
                     .rec = scratch[rec],
                     .h_in = recurrent_dropout ? scratch[h_in] : h,
                     .mask = c.has_mask ? floats(ctx.input(6)) : nullptr,
                     .recurrent_mask = scratch[recurrent_mask],
                     .h = h,
                     .c = cs,
                     .next_h_in = recurrent_dropout ? scratch[h_in] : nullptr,
                     .reset_h = scratch[reset_h],
                     .workspace = ws,
                     .y = floats(ctx.output(0))};
  for (std::int64_t s = 0; s < T; ++s) {
    if (c.gru_reset_before()) {
      // z and r columns first; the candidate's recurrent term needs r.
      gemm(ctx, run, B, 2 * H, H, {step.h_in, H}, {U, GH}, scratch[rec], GH);
      launch_gru_reset_gate(c, step, s, stream);
      // (r * h_in) · U_h straight into each row's fourth workspace block.
      gemm(ctx, run, B, H, H, {step.reset_h, H}, {U + 2 * H, GH}, ws + s * K + 3 * H, T * K);
      launch_gru_candidate(c, step, s, stream);
    } else {
      gemm(ctx, run, B, GH, H, {step.h_in, H}, {U, GH}, scratch[rec], GH);
      launch_rnn_step(c, step, s, stream);
    }
  }
  check_launch(ctx);
}

void rnn_sequence_grad(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  const std::int64_t H = ctx.input(4).shape()[0];
  const Config c(ctx.node, x.shape(), H, ctx.inputs.size() == 11);
  const std::int64_t B = c.B, T = c.T, F = c.F, GH = c.G * H;
  const float* W = floats(ctx.input(3));
  const float* U = floats(ctx.input(4));
  float* dx = floats(ctx.output(0));
  float* dh = floats(ctx.output(1));  // the gradient reaching each step's carried h and c
  float* dc = floats(ctx.output(2));  // lives in dh0's and dc0's outputs
  const bool input_dropout = drops(ctx, c.dropout), recurrent_dropout = drops(ctx, c.recurrent_dropout);
  const bool reset_before = c.gru_reset_before();

  Scratch scratch;
  const int input_mask = scratch.reserve(input_dropout ? B * F : 0);
  const int dropped_x = scratch.reserve(input_dropout ? B * T * F : 0);
  const int recurrent_mask = scratch.reserve(recurrent_dropout ? B * H : 0);
  const int gate_grad_x = scratch.reserve(B * T * GH);  // by input step t: pairs with x
  const int gate_grad_h = scratch.reserve(B * T * GH);  // by processing step s: pairs with h_in
  const int h_ins = scratch.reserve(B * T * H);
  const int reset_h_ins = scratch.reserve(reset_before ? B * T * H : 0);
  const int dh_prev = scratch.reserve(B * H);
  const int dh_in = scratch.reserve(B * H);
  const int reset_h_grad = scratch.reserve(reset_before ? B * H : 0);
  scratch.allocate(run);

  copy_floats(ctx, dh, floats(ctx.input(8)), B * H, stream);
  if (c.cell == Cell::lstm) {
    copy_floats(ctx, dc, floats(ctx.input(9)), B * H, stream);
  } else {
    zero_floats(ctx, dc, B * H, stream);
  }
  if (recurrent_dropout) {
    draw_mask(ctx, c, c.recurrent_dropout, B, H, ops::kRecurrentMaskStream, scratch[recurrent_mask], stream);
  }
  const RnnStepGrad step{.workspace = floats(ctx.input(6)),
                         .h0 = floats(ctx.input(1)),
                         .c0 = floats(ctx.input(2)),
                         .dy = floats(ctx.input(7)),
                         .mask = c.has_mask ? floats(ctx.input(10)) : nullptr,
                         .recurrent_mask = scratch[recurrent_mask],
                         .dh = dh,
                         .dc = dc,
                         .dh_prev = scratch[dh_prev],
                         .gate_grad_x = scratch[gate_grad_x],
                         .gate_grad_h = scratch[gate_grad_h],
                         .h_ins = scratch[h_ins],
                         .reset_h_ins = scratch[reset_h_ins],
                         .reset_h_grad = scratch[reset_h_grad],
                         .dh_in = scratch[dh_in]};
  // Rows b of step s's gate gradients by processing step: every T-th row from row s.
  const std::int64_t step_rows = T * GH;
  for (std::int64_t s = T - 1; s >= 0; --s) {
    launch_rnn_gate_grad(c, step, s, stream);
    const float* gr = step.gate_grad_h + s * GH;
    if (reset_before) {
      // d(r*h_in) = dpre · U_hᵀ; then r's gradient, then the z/r columns' recurrent term.
      gemm(ctx, run, B, H, H, {gr + 2 * H, step_rows}, {U + 2 * H, GH, true}, scratch[reset_h_grad], H);
      launch_gru_reset_grad(c, step, s, stream);
      gemm(ctx, run, B, H, 2 * H, {gr, step_rows}, {U, GH, true}, step.dh_in, H, 1.f);
    } else {
      gemm(ctx, run, B, H, GH, {gr, step_rows}, {U, GH, true}, step.dh_in, H);
    }
    launch_rnn_carry_grad(c, step, stream);
  }
  // Weight gradients: one product each over all steps.
  gemm(ctx, run, B * T, F, GH, {step.gate_grad_x, GH}, {W, GH, true}, dx, F);
  const float* dropped_input = floats(x);
  if (input_dropout) {
    draw_mask(ctx, c, c.dropout, B, F, ops::kInputMaskStream, scratch[input_mask], stream);
    launch_scale_rows(floats(x), scratch[input_mask], scratch[dropped_x], B * T, F, T, stream);
    launch_scale_rows(dx, scratch[input_mask], dx, B * T, F, T, stream);
    dropped_input = scratch[dropped_x];
  }
  gemm(ctx, run, F, GH, B * T, {dropped_input, F, true}, {step.gate_grad_x, GH}, floats(ctx.output(3)), GH);
  float* dU = floats(ctx.output(4));
  if (reset_before) {
    gemm(ctx, run, H, 2 * H, B * T, {step.h_ins, H, true}, {step.gate_grad_h, GH}, dU, GH);
    gemm(ctx, run, H, H, B * T, {step.reset_h_ins, H, true}, {step.gate_grad_h + 2 * H, GH}, dU + 2 * H, GH);
  } else {
    gemm(ctx, run, H, GH, B * T, {step.h_ins, H, true}, {step.gate_grad_h, GH}, dU, GH);
  }
  float* db = floats(ctx.output(5));
  launch_column_sums(step.gate_grad_x, B * T, GH, GH, db, stream);
  if (c.cell == Cell::gru && c.reset_after) launch_column_sums(step.gate_grad_h, B * T, GH, GH, db + GH, stream);
  check_launch(ctx);
}

}  // namespace strata::cuda
