// cuBLAS's float32 GEMM on row-major matrices, for the host side of CUDA kernels (matmul,
// dense, the recurrent ops): C (m x n) = op(A) · op(B) + beta · C, each matrix with its
// own leading dimension (row stride), so a product may read or write every T-th row of a
// (B, T, ...) tensor. On the run context's stream and cuBLAS handle (TF32 off: the
// handle's default math). Built only with STRATA_WITH_CUDA.
#pragma once

#include <cstdint>

namespace strata {
struct KernelContext;
}

namespace strata::cuda {

class RunContext;

struct GemmOperand {
  const float* data = nullptr;
  std::int64_t ld = 0;      // row stride in floats
  bool transposed = false;  // op(X) = Xᵀ
};

// Enqueues C = op(A) · op(B) + beta · C, op(A) being m x k and op(B) k x n, beta 0 (C
// overwritten) or 1 (the product added to C). An empty sum (k = 0) writes zeros for beta
// 0 and leaves C for beta 1 (cuBLAS would be handed leading dimensions of 0). Throws
// strata::Error naming ctx's op when cuBLAS refuses.
void gemm(const KernelContext& ctx, const RunContext& run, std::int64_t m, std::int64_t n, std::int64_t k,
          GemmOperand a, GemmOperand b, float* c, std::int64_t ldc, float beta = 0.f);

}  // namespace strata::cuda
