// The recurrent ops' elementwise CUDA kernels: grid-stride loops over the per-element
// functions of core/cuda/rnn_step.h (dropout masks, the gate math of one step forward and
// backward, the bias gradient's column sums). The products between them are cuBLAS's
// (core/cuda/rnn_kernels.cc, in the order of core/cuda/rnn_plan.h).
#include <cuda_runtime.h>

#include <cstdint>

#include "core/cuda/grid_stride.cuh"
#include "core/cuda/rnn_launch.h"

namespace strata::cuda {

namespace {

using ops::RnnLayout;

__global__ void dropout_mask_kernel(float* mask, std::int64_t n, std::uint64_t seed, std::uint64_t stream,
                                    std::uint64_t first_counter, float rate, float keep_scale) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    mask[i] = ops::dropout_mask_element(seed, stream, first_counter + static_cast<std::uint64_t>(i), rate, keep_scale);
  }
}

__global__ void scale_rows_kernel(const float* in, const float* mask, float* out, std::int64_t n, std::int64_t width,
                                  std::int64_t per_mask_row) {
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    scale_rows_element(in, mask, out, width, per_mask_row, i);
  }
}

// Which per-element function a step kernel runs.
enum class StepWork { step, gru_reset_gate, gru_candidate };
enum class GradWork { gate_grad, gru_reset_grad, carry_grad };

__global__ void step_kernel(StepWork work, RnnLayout L, RnnStep p, std::int64_t s) {
  const std::int64_t n = L.B * L.H;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    switch (work) {
      case StepWork::step: step_element(L, p, s, i); break;
      case StepWork::gru_reset_gate: gru_reset_gate_element(L, p, s, i); break;
      case StepWork::gru_candidate: gru_candidate_element(L, p, s, i); break;
    }
  }
}

__global__ void grad_kernel(GradWork work, RnnLayout L, RnnStepGrad p, std::int64_t s) {
  const std::int64_t n = L.B * L.H;
  for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
    switch (work) {
      case GradWork::gate_grad: gate_grad_element(L, p, s, i); break;
      case GradWork::gru_reset_grad: gru_reset_grad_element(L, p, s, i); break;
      case GradWork::carry_grad: carry_grad_element(p, i); break;
    }
  }
}

__global__ void column_sums_kernel(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                   float* out) {
  for (std::int64_t c = first_index(); c < cols; c += grid_stride()) out[c] = column_sum(in, rows, ld, c);
}

void launch_step(StepWork work, const RnnLayout& L, const RnnStep& p, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = L.B * L.H;
  if (n == 0) return;
  step_kernel<<<blocks_for(n), kThreads, 0, stream>>>(work, L, p, s);
}

void launch_grad(GradWork work, const RnnLayout& L, const RnnStepGrad& p, std::int64_t s, CUstream_st* stream) {
  const std::int64_t n = L.B * L.H;
  if (n == 0) return;
  grad_kernel<<<blocks_for(n), kThreads, 0, stream>>>(work, L, p, s);
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
  const std::int64_t n = rows * width;
  if (n == 0) return;
  scale_rows_kernel<<<blocks_for(n), kThreads, 0, stream>>>(in, mask, out, n, width, per_mask_row);
}

void launch_rnn_step(const RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream) {
  launch_step(StepWork::step, layout, step, s, stream);
}

void launch_gru_reset_gate(const RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream) {
  launch_step(StepWork::gru_reset_gate, layout, step, s, stream);
}

void launch_gru_candidate(const RnnLayout& layout, const RnnStep& step, std::int64_t s, CUstream_st* stream) {
  launch_step(StepWork::gru_candidate, layout, step, s, stream);
}

void launch_rnn_gate_grad(const RnnLayout& layout, const RnnStepGrad& step, std::int64_t s, CUstream_st* stream) {
  launch_grad(GradWork::gate_grad, layout, step, s, stream);
}

void launch_gru_reset_grad(const RnnLayout& layout, const RnnStepGrad& step, std::int64_t s, CUstream_st* stream) {
  launch_grad(GradWork::gru_reset_grad, layout, step, s, stream);
}

void launch_rnn_carry_grad(const RnnLayout& layout, const RnnStepGrad& step, CUstream_st* stream) {
  launch_grad(GradWork::carry_grad, layout, step, 0, stream);
}

void launch_column_sums(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* out,
                        CUstream_st* stream) {
  if (cols == 0) return;
  column_sums_kernel<<<blocks_for(cols), kThreads, 0, stream>>>(in, rows, cols, ld, out);
}

}  // namespace strata::cuda
