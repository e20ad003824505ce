#include "core/cuda/matmul_kernels.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <utility>

#include "core/cuda/check.h"
#include "core/cuda/device_floats.h"
#include "core/cuda/elementwise_launch.h"
#include "core/cuda/run_context.h"
#include "core/op_registry.h"

namespace strata::cuda {

namespace {

// (rows, cols) of a tensor read as a matrix: product of leading dims, last dim.
std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s) {
  if (s.rank() < 1) return {1, 1};
  return {s.product(0, s.rank() - 1), s.dims()[static_cast<std::size_t>(s.rank() - 1)]};
}

// C (m x n) = op(A) · op(B), every matrix row-major with the given leading dimension.
// cuBLAS is column-major, where a row-major matrix reads as its transpose: it computes
// Cᵀ = op(B)ᵀ · op(A)ᵀ, i.e. the same call with the operands (and m, n) swapped.
void gemm(const KernelContext& ctx, const RunContext& run, bool ta, bool tb, std::int64_t m, std::int64_t n,
          std::int64_t k, const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float* c,
          std::int64_t ldc) {
  if (m == 0 || n == 0) return;
  if (k == 0) {  // an empty sum: zeros (cuBLAS would be given leading dimensions of 0)
    check(cudaMemsetAsync(c, 0, static_cast<std::size_t>(m * n) * sizeof(float), run.stream().get()), ctx,
          "cudaMemsetAsync");
    return;
  }
  const float one = 1.f, zero = 0.f;
  check(cublasSgemm_64(run.blas().get(), tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one,
                       b, ldb, a, lda, &zero, c, ldc),
        ctx, "cublasSgemm");
}

}  // namespace

void matmul(KernelContext& ctx) {
  const RunContext& run = run_context(ctx);
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  auto [ar, ac] = as_matrix(a.shape());
  auto [br, bc] = as_matrix(b.shape());
  const bool ta = ctx.node.attrs.get<bool>("transpose_a"), tb = ctx.node.attrs.get<bool>("transpose_b");
  const std::int64_t m = ta ? ac : ar, k = ta ? ar : ac, n = tb ? br : bc;
  gemm(ctx, run, ta, tb, m, n, k, floats(a), ac, floats(b), bc, floats(ctx.output(0)), n);
}

void dense(KernelContext& ctx) {
  const RunContext& run = run_context(ctx);
  const Tensor& x = ctx.input(0);
  const Tensor& kernel = ctx.input(1);
  const float* bias = ctx.inputs.size() == 3 ? floats(ctx.input(2)) : nullptr;
  const bool relu = ctx.node.attrs.get_or<std::string>("activation", "") == "relu";
  auto [rows, in] = as_matrix(x.shape());
  const std::int64_t units = kernel.shape()[1];
  float* y = floats(ctx.output(0));
  gemm(ctx, run, false, false, rows, units, in, floats(x), in, floats(kernel), units, y, units);
  launch_bias_relu(y, bias, relu, rows, units, run.stream().get());
  check_launch(ctx);
}

}  // namespace strata::cuda
