#include "core/cuda/gemm.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "core/cuda/check.h"
#include "core/cuda/run_context.h"

namespace strata::cuda {

// cuBLAS is column-major, where a row-major matrix reads as its transpose: it computes
// Cᵀ = op(B)ᵀ · op(A)ᵀ, i.e. the same call with the operands (and m, n) swapped.
void gemm(const KernelContext& ctx, const RunContext& run, std::int64_t m, std::int64_t n, std::int64_t k,
          GemmOperand a, GemmOperand b, float* c, std::int64_t ldc, float beta) {
  if (m == 0 || n == 0) return;
  if (k == 0) {
    if (beta != 0.f) return;  // beta 1: C + 0
    check(cudaMemset2DAsync(c, static_cast<std::size_t>(ldc) * sizeof(float), 0,
                            static_cast<std::size_t>(n) * sizeof(float), static_cast<std::size_t>(m),
                            run.stream().get()),
          ctx, "cudaMemset2DAsync");
    return;
  }
  const float one = 1.f;
  check(cublasSgemm_64(run.blas().get(), b.transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
                       a.transposed ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one, b.data, b.ld, a.data, a.ld, &beta, c,
                       ldc),
        ctx, "cublasSgemm");
}

}  // namespace strata::cuda
