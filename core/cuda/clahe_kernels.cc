// Host side of the CLAHE CUDA kernels: the geometry from the node and shapes
// (ops::clahe_geometry, as the CPU kernels read it), then one launch each
// (core/cuda/clahe.cu).
#include "core/cuda/clahe_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/clahe_launch.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"
#include "core/ops/image_ops.h"

namespace strata::cuda {

void clahe_tables(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& images = ctx.input(0);
  Tensor& out = ctx.output(0);
  const ClaheGeometry g =
      ops::clahe_geometry(images.shape(), ctx.node.attrs.get<std::int64_t>("grid_h"),
                          ctx.node.attrs.get<std::int64_t>("grid_w"), ctx.node.attrs.get<double>("clip_limit"));
  if (out.size() == 0) return;
  launch_clahe_tables(floats(images), floats(out), images.shape()[0], g, run.stream().get());
  check_launch(ctx);
}

void clahe_interpolate(KernelContext& ctx) {
  RunContext& run = run_context(ctx);
  const Tensor& images = ctx.input(0);
  const Tensor& tables = ctx.input(1);
  Tensor& out = ctx.output(0);
  const ClaheGeometry g = ops::clahe_blend_geometry(images.shape(), tables.shape());
  if (out.size() == 0) return;
  launch_clahe_interpolate(floats(images), floats(tables), floats(out), images.shape()[0], g, run.stream().get());
  check_launch(ctx);
}

void register_clahe_kernels(OpRegistry& r) {
  add_kernel(r, "clahe_tables", clahe_tables);
  add_kernel(r, "clahe_interpolate", clahe_interpolate);
}

}  // namespace strata::cuda
