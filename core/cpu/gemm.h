// Single-precision GEMM for the CPU backend: C = op(A) · op(B), all row-major.
//
// Eigen's own multi-threaded GEMM synchronizes its threads inside every product and
// allocates its packing workspace on each call; on a small machine that is busy (two
// cores, tests running in parallel) the barriers dominate. Here the output is split
// into one block per thread (or, for few outputs over many steps of k, the steps, the
// partial products added), each computed by one single-threaded kernel with per-thread
// packing buffers allocated once, so a product costs one fork-join and no heap
// allocation: Strata's packed AVX-512 kernel (packed_gemm.h) where the build has it,
// else Eigen's. One-row or one-column products go to a matrix-vector kernel instead
// (batch-1 inference): Strata's (gemv.h) for a row times a row-major matrix on AVX-512
// builds, Eigen's otherwise.
#pragma once

#include <cstdint>

#include "core/cpu/epilogue.h"

namespace strata::cpu {

class PackedB;  // packed_gemm.h

// a: op(A) is m×k (A stored k×m when transpose_a); b: op(B) is k×n (B stored n×k when
// transpose_b). lda/ldb/ldc are row strides in elements. The epilogue (a bias per column,
// an activation) is applied to C as it is written (epilogue.h).
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
          std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, const Epilogue& epilogue = {});

// One thread's product, for kernels that already run in parallel (a convolution's
// blocks of images): C = op(A)·op(B), or C += op(A)·op(B) when `accumulate`, on the
// calling thread with the kernel cpu::gemm's blocks use.
void gemm_serial(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                 std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
                 const Epilogue& epilogue = {});

// C = A·B with B packed once (PackedB, packed_gemm.h; only where packed_gemm_available()):
// A m×k row-major. Split over the threads by rows, as gemm() splits a tall product.
void gemm_prepacked(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c, std::int64_t ldc,
                    const Epilogue& epilogue = {});

// `batch` independent products, C_i = op(A_i) · op(B_i), the i-th operands `stride_a`,
// `stride_b` and `stride_c` elements after the previous (attention's per-sample,
// per-head products). Small products run one per thread; large ones are each split as
// gemm() splits them.
void gemm_batched(bool transpose_a, bool transpose_b, std::int64_t batch, std::int64_t m, std::int64_t n,
                  std::int64_t k, const float* a, std::int64_t lda, std::int64_t stride_a, const float* b,
                  std::int64_t ldb, std::int64_t stride_b, float* c, std::int64_t ldc, std::int64_t stride_c);

}  // namespace strata::cpu
