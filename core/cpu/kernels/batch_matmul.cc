// CPU kernel of batch_matmul (core/ops/batch_matmul.h): the CPU backend's batched GEMM
// (core/cpu/gemm.h) over the leading dims.
#include "core/ops/batch_matmul.h"

#include "core/cpu/gemm.h"
#include "core/cpu/kernels/register.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

void batch_matmul_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const ops::BatchMatmulGeometry g = ops::batch_matmul_geometry(ctx.node, a.shape(), b.shape());
  cpu::gemm_batched(ctx.node.attrs.get<bool>("transpose_a"), ctx.node.attrs.get<bool>("transpose_b"), g.batch, g.m,
                    g.n, g.k, a.data<float>(), g.a_cols, g.a_rows * g.a_cols, b.data<float>(), g.b_cols,
                    g.b_rows * g.b_cols, out.data<float>(), g.n, g.m * g.n);
}

}  // namespace

void register_batch_matmul_kernels(OpRegistry& r) {
  r.add_kernel("batch_matmul", DeviceType::cpu, {.run = batch_matmul_kernel});
}

}  // namespace strata::cpu
