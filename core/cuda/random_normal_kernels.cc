// Host side of the random_normal_like CUDA kernel: the CPU kernel's seed, stream and first
// element (core/cpu/kernels/random.cc), then one launch (core/cuda/random_normal.cu).
#include "core/cuda/device_floats.h"
#include "core/cuda/random_normal_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/random_normal_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

void random_normal_like(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& like = ctx.input(0);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  const Attrs& a = ctx.node.attrs;
  RandomNormalNode node;
  node.seed = static_cast<std::uint64_t>(a.get<std::int64_t>("seed"));
  node.stream = static_cast<std::uint64_t>(a.get<std::int64_t>("stream"));
  node.sample_size = like.rank() > 0 && like.shape()[0] > 0 ? like.size() / like.shape()[0] : 0;
  // The step and sample offset come from the run context's device copy of the run's
  // (ExecutionState writes it; a captured graph replays reading each step's own).
  launch_random_normal(floats(out), out.size(), node, run.run_scalars(ctx), run.stream().get());
  check_launch(ctx);
}

void register_random_normal_kernels(OpRegistry& r) { add_kernel(r, "random_normal_like", random_normal_like); }

}  // namespace strata::cuda
