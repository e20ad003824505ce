// Host side of the scan CUDA kernels: the (outer, n, inner) view around the axis, then
// one launch (core/cuda/scan.cu).
#include "core/cuda/scan_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/cuda/scan_launch.h"
#include "core/op_registry.h"
#include "core/ops/scan_ops.h"

namespace strata::cuda {

namespace {

using Lanes = ops::ScanLanes;
Lanes lanes_of(const KernelContext& ctx) { return ops::scan_lanes(ctx.input(0).shape(), ctx.node.attrs); }

}  // namespace

void cumsum(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  launch_scan(ScanOp::sum, ctx.node.attrs.get<bool>("reverse"), floats(ctx.input(0)), floats(ctx.output(0)), l.outer,
              l.n, l.inner, run_context(ctx).stream().get());
  check_launch(ctx);
}

void cumprod(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  launch_scan(ScanOp::product, false, floats(ctx.input(0)), floats(ctx.output(0)), l.outer, l.n, l.inner,
              run_context(ctx).stream().get());
  check_launch(ctx);
}

void cumprod_grad(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  launch_cumprod_grad(floats(ctx.input(0)), floats(ctx.input(1)), floats(ctx.output(0)), l.outer, l.n, l.inner,
                      run_context(ctx).stream().get());
  check_launch(ctx);
}

void reverse(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  launch_reverse(floats(ctx.input(0)), floats(ctx.output(0)), l.outer, l.n, l.inner, run_context(ctx).stream().get());
  check_launch(ctx);
}

void argsort(KernelContext& ctx) {
  const Lanes l = lanes_of(ctx);
  launch_argsort(floats(ctx.input(0)), static_cast<std::int32_t*>(ctx.output(0).device_data()), l.outer, l.n,
                 l.inner, ctx.node.attrs.get<bool>("descending"), run_context(ctx).stream().get());
  check_launch(ctx);
}

void register_scan_kernels(OpRegistry& r) {
  add_kernel(r, "cumsum", cumsum);
  add_kernel(r, "cumprod", cumprod);
  add_kernel(r, "cumprod_grad", cumprod_grad);
  add_kernel(r, "reverse", reverse);
  add_kernel(r, "argsort", argsort);
}

}  // namespace strata::cuda
