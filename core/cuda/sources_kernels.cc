// Host side of the source and cast CUDA kernels: the value or the types off the node, then
// one launch (core/cuda/sources.cu).
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/sources_kernels.h"

#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/run_context.h"
#include "core/cuda/sources_launch.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

void fill(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  Tensor& out = ctx.output(0);
  launch_fill(floats(out), static_cast<float>(ctx.node.attrs.get<double>("value")),
              out.size(), stream);
  check_launch(ctx);
}

}  // namespace

void constant(KernelContext& ctx) { fill(ctx); }
void fill_like(KernelContext& ctx) { fill(ctx); }

void cast(KernelContext& ctx) {
  CUstream_st* stream = run_context(ctx).stream().get();
  const Tensor& in = ctx.input(0);
  Tensor& out = ctx.output(0);
  launch_cast(element_type(in.dtype(), ctx.node.name), in.device_data(), element_type(out.dtype(), ctx.node.name),
              out.device_data(), in.size(), stream);
  check_launch(ctx);
}

void register_source_kernels(OpRegistry& r) {
  add_kernel(r, "constant", constant);
  add_kernel(r, "fill_like", fill_like);
  add_kernel(r, "cast", cast);
}

}  // namespace strata::cuda
