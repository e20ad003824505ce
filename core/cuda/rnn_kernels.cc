// Host side of the recurrent ops' CUDA kernels: the CPU kernel's Config (core/ops/
// rnn_config.h), then cuDNN's RNN where it takes the run (core/cuda/cudnn_rnn.h), else the
// work of core/cuda/rnn_plan.h — per step a cuBLAS product and the fused gate kernels of
// core/cuda/rnn.cu — on the run context's stream, with scratch carved from its workspace.
#include "core/cuda/kernel_registration.h"
#include "core/cuda/rnn_kernels.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/gemm.h"
#include "core/cuda/rnn_launch.h"
#include "core/cuda/rnn_plan.h"
#include "core/cuda/run_context.h"
#include "core/cuda/workspace_parts.h"
#include "core/op_registry.h"
#include "core/ops/rnn_config.h"

#if defined(STRATA_WITH_CUDNN)
#include "core/cuda/cudnn_rnn.h"
#endif

namespace strata::cuda {

namespace {

using ops::Config;

void zero_floats(const KernelContext& ctx, float* to, std::int64_t n, CUstream_st* stream) {
  if (n == 0) return;
  check(cudaMemsetAsync(to, 0, static_cast<std::size_t>(n) * sizeof(float), stream), ctx, "cudaMemsetAsync");
}

// The Device of core/cuda/rnn_plan.h on a run context: cuBLAS products and the kernels of
// core/cuda/rnn.cu, enqueued on its stream; scratch from its workspace.
class CudaRnnDevice {
 public:
  CudaRnnDevice(const KernelContext& ctx, RunContext& run) : ctx_(ctx), run_(run), stream_(run.stream().get()) {}

  std::vector<float*> scratch(std::initializer_list<std::int64_t> floats) {
    WorkspaceParts parts;
    std::vector<int> indices;
    for (std::int64_t n : floats) indices.push_back(parts.add(static_cast<std::size_t>(n > 0 ? n : 0) * sizeof(float)));
    parts.carve(run_.workspace());
    std::vector<float*> pointers;
    for (int i : indices) pointers.push_back(parts.at<float>(i));
    return pointers;
  }
  void gemm(std::int64_t m, std::int64_t n, std::int64_t k, GemmOperand a, GemmOperand b, float* c, std::int64_t ldc,
            float beta) {
    cuda::gemm(ctx_, run_, m, n, k, a, b, c, ldc, beta);
  }
  void copy(float* to, const float* from, std::int64_t n) {
    if (n == 0) return;
    check(cudaMemcpyAsync(to, from, static_cast<std::size_t>(n) * sizeof(float), cudaMemcpyDeviceToDevice, stream_),
          ctx_, "cudaMemcpyAsync");
  }
  void zero(float* to, std::int64_t n) { zero_floats(ctx_, to, n, stream_); }
  void dropout_mask(float* mask, std::int64_t n, std::uint64_t seed, std::uint64_t stream, std::uint64_t first,
                    float rate, float keep_scale) {
    launch_rnn_dropout_mask(mask, n, seed, stream, first, rate, keep_scale, stream_);
  }
  void scale_rows(const float* in, const float* mask, float* out, std::int64_t rows, std::int64_t width,
                  std::int64_t per_mask_row) {
    launch_scale_rows(in, mask, out, rows, width, per_mask_row, stream_);
  }
  void step(const ops::RnnLayout& L, const RnnStep& p, std::int64_t s) { launch_rnn_step(L, p, s, stream_); }
  void gru_reset_gate(const ops::RnnLayout& L, const RnnStep& p, std::int64_t s) {
    launch_gru_reset_gate(L, p, s, stream_);
  }
  void gru_candidate(const ops::RnnLayout& L, const RnnStep& p, std::int64_t s) {
    launch_gru_candidate(L, p, s, stream_);
  }
  void gate_grad(const ops::RnnLayout& L, const RnnStepGrad& p, std::int64_t s) {
    launch_rnn_gate_grad(L, p, s, stream_);
  }
  void gru_reset_grad(const ops::RnnLayout& L, const RnnStepGrad& p, std::int64_t s) {
    launch_gru_reset_grad(L, p, s, stream_);
  }
  void carry_grad(const ops::RnnLayout& L, const RnnStepGrad& p) { launch_rnn_carry_grad(L, p, stream_); }
  void column_sums(const float* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, float* out) {
    launch_column_sums(in, rows, cols, ld, out, stream_);
  }

 private:
  const KernelContext& ctx_;
  RunContext& run_;
  CUstream_st* stream_;
};

}  // namespace

void rnn_zero_state(KernelContext& ctx) {
  const RunContext& run = run_context(ctx);
  zero_floats(ctx, floats(ctx.output(0)), ctx.output(0).size(), run.stream().get());
}

void rnn_sequence(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Config c(ctx.node, x.shape(), ctx.input(4).shape()[0], ctx.inputs.size() == 7);
  const RnnForwardIO io{.x = floats(x),
                        .h0 = floats(ctx.input(1)),
                        .c0 = floats(ctx.input(2)),
                        .kernel = floats(ctx.input(3)),
                        .recurrent_kernel = floats(ctx.input(4)),
                        .bias = floats(ctx.input(5)),
                        .mask = c.has_mask ? floats(ctx.input(6)) : nullptr,
                        .y = floats(ctx.output(0)),
                        .h = floats(ctx.output(1)),
                        .c = floats(ctx.output(2)),
                        .workspace = floats(ctx.output(3))};
  const RnnDropout dropout = rnn_dropout(ctx, c);
#if defined(STRATA_WITH_CUDNN)
  if (cudnn_rnn_forward(ctx, run, c, dropout, io)) return;
#endif
  CudaRnnDevice device(ctx, run);
  run_rnn_forward(device, c, dropout, io);
  check_launch(ctx);
}

void rnn_sequence_grad(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Config c(ctx.node, x.shape(), ctx.input(4).shape()[0], ctx.inputs.size() == 11);
  const RnnBackwardIO io{.x = floats(x),
                         .h0 = floats(ctx.input(1)),
                         .c0 = floats(ctx.input(2)),
                         .kernel = floats(ctx.input(3)),
                         .recurrent_kernel = floats(ctx.input(4)),
                         .workspace = floats(ctx.input(6)),
                         .dy = floats(ctx.input(7)),
                         .dh = floats(ctx.input(8)),
                         .dc = floats(ctx.input(9)),
                         .mask = c.has_mask ? floats(ctx.input(10)) : nullptr,
                         .dx = floats(ctx.output(0)),
                         .dh0 = floats(ctx.output(1)),
                         .dc0 = floats(ctx.output(2)),
                         .dkernel = floats(ctx.output(3)),
                         .drecurrent_kernel = floats(ctx.output(4)),
                         .dbias = floats(ctx.output(5))};
  const RnnDropout dropout = rnn_dropout(ctx, c);
#if defined(STRATA_WITH_CUDNN)
  if (cudnn_rnn_backward(ctx, run, c, dropout, io)) return;
#endif
  CudaRnnDevice device(ctx, run);
  run_rnn_backward(device, c, dropout, io);
  check_launch(ctx);
}

// The recurrent kernels draw their dropout masks' step on the host.
void register_rnn_kernels(OpRegistry& r) {
  const auto dropout_step_on_the_host = [](const Node& node) -> std::string {
    const bool dropout = node.attrs.get_or<double>("dropout", 0.0) > 0.0 ||
                         node.attrs.get_or<double>("recurrent_dropout", 0.0) > 0.0;
    return dropout ? "takes the step of its dropout masks on the host" : "";
  };
  add_host_reading_kernel(r, "rnn_sequence", rnn_sequence, dropout_step_on_the_host);
  add_host_reading_kernel(r, "rnn_sequence_grad", rnn_sequence_grad, dropout_step_on_the_host);
  add_kernel(r, "rnn_zero_state", rnn_zero_state);
}

}  // namespace strata::cuda
