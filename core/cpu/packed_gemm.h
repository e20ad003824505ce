// Strata's own single-threaded SGEMM kernel for AVX-512 machines: operands packed into
// cache-sized panels, a 12×32 (or 12×16) register tile of C updated by fused
// multiply-adds; products of at most 12 columns with A transposed (and k ≥ 16) keep C^T
// in registers instead, so that all 16 lanes work.
//
// Eigen's kernel reached 70-90% of oneDNN's on the shapes our models run and a quarter
// of it where the output has few columns (a 10-class Dense layer); oneDNN's sgemm
// allocates its packing buffers on every call, which a training step must not do
// (docs/performance.md). This kernel packs into per-thread buffers that only grow.
// cpu::gemm (gemm.h) calls it for each thread's block of a product.
#pragma once

#include <cstdint>

namespace strata::cpu {

// True when this build has the kernel (compiled for a CPU with AVX-512F); otherwise
// packed_gemm must not be called and cpu::gemm uses Eigen's kernel.
bool packed_gemm_available() noexcept;

// The most steps of k the kernel takes in one block on this machine (KC: sized from L1d,
// read once; 768 on 48 KB, 512 on 32 KB). A product with more steps runs in equal
// blocks, one pass over C each; tests use it to reach several blocks on any machine.
std::int64_t packed_gemm_max_depth() noexcept;

// C = op(A)·op(B), or C += op(A)·op(B) when `accumulate`; row-major, the operands and
// strides as cpu::gemm's. Runs on the calling thread only.
void packed_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
                 std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate);

}  // namespace strata::cpu
