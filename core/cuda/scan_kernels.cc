// Host side of the scan CUDA kernels: the (outer, n, inner) view around the axis, then
// one launch (core/cuda/scan.cu).
#include "core/cuda/scan_kernels.h"

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/cuda/scan_launch.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

struct Lanes {
  std::int64_t outer = 1, n = 1, inner = 1;
};

Lanes lanes_of(const KernelContext& ctx) {
  const Shape& s = ctx.input(0).shape();
  const int axis = s.normalize_axis(static_cast<int>(ctx.node.attrs.get<std::int64_t>("axis")));
  return {s.product(0, axis), s.dims()[static_cast<std::size_t>(axis)], s.product(axis + 1, s.rank())};
}

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

void register_scan_kernels(OpRegistry& r) {
  add_kernel(r, "cumsum", cumsum);
  add_kernel(r, "cumprod", cumprod);
  add_kernel(r, "cumprod_grad", cumprod_grad);
  add_kernel(r, "reverse", reverse);
}

}  // namespace strata::cuda
