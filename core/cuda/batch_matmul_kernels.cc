// Host side of batch_matmul on cuBLAS: the shapes and transposes off the node, then one
// cublasSgemmStridedBatched_64.
#include "core/cuda/batch_matmul_kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/kernel_registration.h"
#include "core/cuda/run_context.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/batch_matmul.h"

namespace strata::cuda {

void batch_matmul(KernelContext& ctx) {
  const RunContext& run = run_context(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  const bool ta = ctx.node.attrs.get<bool>("transpose_a"), tb = ctx.node.attrs.get<bool>("transpose_b");
  const ops::BatchMatmulGeometry g = ops::batch_matmul_geometry(ctx.node, a.shape(), b.shape());
  const std::int64_t a_rows = g.a_rows, a_cols = g.a_cols, b_rows = g.b_rows, b_cols = g.b_cols;
  const std::int64_t m = g.m, k = g.k, n = g.n, batch = g.batch;
  // Shape inference checked the shapes; a mismatch here would read past an operand.
  if (b.shape().product(0, b.shape().rank() - 2) != batch || (tb ? b_cols : b_rows) != k ||
      out.size() != batch * m * n) {
    throw ShapeError("batch_matmul '" + ctx.node.name + "': shapes " + a.shape().to_string() + " and " +
                     b.shape().to_string() + " do not give " + out.shape().to_string());
  }
  if (batch == 0 || m == 0 || n == 0) return;
  if (k == 0) {  // empty sums: zeros (cuBLAS would be given leading dimensions of 0)
    check(cudaMemsetAsync(floats(out), 0, static_cast<std::size_t>(out.size()) * sizeof(float), run.stream().get()),
          ctx, "cudaMemsetAsync");
    return;
  }
  // Row-major matrices read as column-major are their transposes: cuBLAS computes
  // Cᵀ = op(B)ᵀ · op(A)ᵀ per batch entry, the operands (and m, n) swapped, as matmul does.
  const float one = 1.f, zero = 0.f;
  check(cublasSgemmStridedBatched_64(run.blas().get(), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N,
                                     n, m, k, &one, floats(b), b_cols, b_rows * b_cols, floats(a), a_cols,
                                     a_rows * a_cols, &zero, floats(out), n, m * n, batch),
        ctx, "cublasSgemmStridedBatched");
}

void register_batch_matmul_kernels(OpRegistry& r) { add_kernel(r, "batch_matmul", batch_matmul); }

}  // namespace strata::cuda
