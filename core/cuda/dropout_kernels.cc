// Host side of the dropout CUDA kernel: the CPU kernel's key, stream, rate and first
// element (core/cpu/kernels/nn.cc), then one launch (core/cuda/dropout.cu), or a copy on
// the stream outside training.
#include "core/cuda/device_floats.h"
#include "core/cuda/dropout_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/dropout_launch.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

void dropout(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  CUstream_st* stream = run.stream().get();
  const Tensor& x = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  const Attrs& a = ctx.node.attrs;
  const float rate = static_cast<float>(a.get<double>("rate"));
  if (!ctx.training || rate == 0.f) {
    if (out.device_data() != x.device_data()) {
      check(cudaMemcpyAsync(out.device_data(), x.device_data(), static_cast<std::size_t>(x.size()) * sizeof(float),
                            cudaMemcpyDeviceToDevice, stream),
            ctx, "cudaMemcpyAsync");
    }
    return;
  }
  DropoutNode node;
  node.seed = static_cast<std::uint64_t>(a.get<std::int64_t>("seed"));
  node.stream = static_cast<std::uint64_t>(a.get<std::int64_t>("stream"));
  node.rate = rate;
  node.keep_scale = 1.f / (1.f - rate);
  node.sample_size = x.rank() > 0 && x.shape()[0] > 0 ? x.size() / x.shape()[0] : 0;
  // The step and sample offset come from the run context's device copy of the run's
  // (ExecutionState writes it; a captured graph replays reading each step's own).
  launch_dropout(floats(x), floats(out), x.size(), node, run.run_scalars(ctx), stream);
  check_launch(ctx);
}

void register_dropout_kernels(OpRegistry& r) { add_kernel(r, "dropout", dropout); }

}  // namespace strata::cuda
