// The entry points of the kernels compiled once per instruction set (core/cpu/avx2/,
// core/cpu/avx512/, each from the same templates: packed_gemm_kernel.h, gemv_kernel.h).
// Only the dispatchers (packed_gemm.cc, gemv.cc) call them, after cpu::kernel_isa() (or
// the instruction set a PackedB was packed for) has said the CPU runs them.
#pragma once

#include <cstdint>

#include "core/cpu/epilogue.h"
#include "core/cpu/gemv.h"

namespace strata::cpu {

class PackedB;

// How the packed GEMM blocks a product over k steps: `depth` steps of k per block (the
// last block too, at most), `columns` columns of B per block. One rule for the product
// and for a PackedB, so a B packed once lies as the product reads it.
struct GemmBlocking {
  std::int64_t depth, columns;
};

// One instruction set's packed GEMM (packed_gemm.h says what each does).
struct PackedGemmKernels {
  // The most steps of k per block (KC) on this machine, and the blocking of k steps.
  std::int64_t (*max_depth)();
  GemmBlocking (*blocking)(std::int64_t k);
  // Columns per packed sliver of B for a product of n columns.
  std::int64_t (*sliver_width)(std::int64_t n);
  // Packs depth × cols of op(B) (its top-left corner at b) into slivers of `width`.
  void (*pack_b)(bool transpose_b, const float* b, std::int64_t ldb, std::int64_t depth, std::int64_t cols,
                 std::int64_t width, float* out);
  void (*gemm)(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const float* a,
               std::int64_t lda, const float* b, std::int64_t ldb, float* c, std::int64_t ldc, bool accumulate,
               const Epilogue& epilogue);
  // C's columns [col_begin, col_end) of A·B (col_begin a whole number of slivers).
  void (*gemm_prepacked)(std::int64_t m, const float* a, std::int64_t lda, const PackedB& b, float* c,
                         std::int64_t ldc, bool accumulate, const Epilogue& epilogue, std::int64_t col_begin,
                         std::int64_t col_end);
};

// Each instruction set's packing workspaces, one pair per thread, kept by a file compiled
// for no instruction set in particular (packed_gemm.cc): `which` 0 for A, 1 for B; at
// least `floats` floats, 64-byte aligned, contents unspecified.
float* packing_buffer(int which, std::size_t floats);

namespace avx2 {
const PackedGemmKernels& packed_gemm_kernels();
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue);
}  // namespace avx2

namespace avx512 {
const PackedGemmKernels& packed_gemm_kernels();
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue);
}  // namespace avx512

}  // namespace strata::cpu
