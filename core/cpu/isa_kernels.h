// The entry points of the kernels compiled once per instruction set (core/cpu/avx2/,
// core/cpu/avx512/, each from the same templates: packed_gemm_kernel.h, gemv_kernel.h;
// the int8 products written per instruction set). Only the dispatchers (packed_gemm.cc,
// gemv.cc, int8_gemm.cc) call them, after cpu::kernel_isa() (or
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

// One instruction set's int8 product (int8_gemm.h) over panels of packed B: C's columns
// of panels [first, last) for the m rows of packed A (rows of padded_depth elements, as
// int8_gemm.cc packs them for the path), minus each column's offset.
// The packed layouts the int8 kernels read (int8_gemm.cc packs them): columns per panel
// of B and steps of k a lane's multiply-add takes (k is padded to a multiple).
inline constexpr std::int64_t kInt8Avx512PanelWidth = 32, kInt8Avx512DepthGroup = 4;  // int8, VNNI
inline constexpr std::int64_t kInt8Avx2PanelWidth = 16, kInt8Avx2DepthGroup = 2;      // widened to int16
using Int8PanelsKernel = void (*)(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth,
                                  const std::uint8_t* b, std::int64_t panel_bytes, const std::int32_t* offsets,
                                  std::int64_t n, std::int64_t first, std::int64_t last, std::int32_t* c,
                                  std::int64_t ldc);

namespace avx2 {
// vpmaddwd on int16 pairs: panels of 16 columns, k in pairs.
void int8_gemm_panels(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth, const std::uint8_t* b,
                      std::int64_t panel_bytes, const std::int32_t* offsets, std::int64_t n, std::int64_t first,
                      std::int64_t last, std::int32_t* c, std::int64_t ldc);
const PackedGemmKernels& packed_gemm_kernels();
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue);
}  // namespace avx2

namespace avx512 {
// AVX-512 VNNI's vpdpbusd (compiled with -mavx512vnni): panels of 32 columns, k in fours.
void int8_gemm_panels(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth, const std::uint8_t* b,
                      std::int64_t panel_bytes, const std::int32_t* offsets, std::int64_t n, std::int64_t first,
                      std::int64_t last, std::int32_t* c, std::int64_t ldc);
const PackedGemmKernels& packed_gemm_kernels();
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue);
}  // namespace avx512

}  // namespace strata::cpu
