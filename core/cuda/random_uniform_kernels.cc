// Host side of the random_uniform_rows CUDA kernel: the CPU kernel's seed, stream and
// numbering (core/cpu/kernels/random.cc), then one launch (core/cuda/random_uniform.cu).
#include "core/cuda/random_uniform_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/random_uniform_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

void random_uniform_rows(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  Tensor& out = ctx.output(0);
  if (out.size() == 0) return;
  const Attrs& a = ctx.node.attrs;
  RandomUniformNode node;
  node.seed = static_cast<std::uint64_t>(a.get<std::int64_t>("seed"));
  node.stream = static_cast<std::uint64_t>(a.get<std::int64_t>("stream"));
  node.columns = a.get<std::int64_t>("columns");
  node.per_sample = a.get<bool>("per_sample");
  // The step and sample offset come from the run context's device copy of the run's.
  launch_random_uniform(floats(out), out.size(), node, run.run_scalars(ctx), run.stream().get());
  check_launch(ctx);
}

void register_random_uniform_kernels(OpRegistry& r) { add_kernel(r, "random_uniform_rows", random_uniform_rows); }

}  // namespace strata::cuda
