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
// int8_gemm.cc packs them for the path), minus each column's offset, written as `out`
// says.
// The packed layouts the int8 kernels read (int8_gemm.cc packs them): columns per panel
// of B and steps of k a lane's multiply-add takes (k is padded to a multiple).
inline constexpr std::int64_t kInt8Avx512PanelWidth = 32, kInt8Avx512DepthGroup = 4;  // int8, VNNI
inline constexpr std::int64_t kInt8Avx2PanelWidth = 16, kInt8Avx2DepthGroup = 2;      // widened to int16
// Where an int8 kernel writes a tile's exact sums: as int32 (`sums`), or (`values`)
// rescaled as dense_int8 does, in the tile's store while the sums are in registers:
// float(sum) / (column_scales[j] · row_scales[i]), plus bias[j] where given, then relu
// where asked; IEEE operations in that order, so every path gives the same floats.
struct Int8Output {
  std::int32_t* sums = nullptr;
  float* values = nullptr;
  std::int64_t ld = 0;  // of sums or values
  const float* row_scales = nullptr;
  const float* column_scales = nullptr;
  const float* bias = nullptr;
  bool relu = false;
};
// One output of dense_int8's rescale, as every kernel computes it (the vector forms in
// the tiles do the same operations lane by lane).
inline float int8_rescaled(std::int32_t sum, float column_scale, float row_scale, const float* bias, std::int64_t j,
                           bool relu) {
  float v = static_cast<float>(sum) / (column_scale * row_scale);
  if (bias) v += bias[j];
  return relu ? (v > 0.f ? v : 0.f) : v;
}
using Int8PanelsKernel = void (*)(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth,
                                  const std::uint8_t* b, std::int64_t panel_bytes, const std::int32_t* offsets,
                                  std::int64_t n, std::int64_t first, std::int64_t last, const Int8Output& out);

namespace avx2 {
// vpmaddwd on int16 pairs: panels of 16 columns, k in pairs.
void int8_gemm_panels(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth, const std::uint8_t* b,
                      std::int64_t panel_bytes, const std::int32_t* offsets, std::int64_t n, std::int64_t first,
                      std::int64_t last, const Int8Output& out);
const PackedGemmKernels& packed_gemm_kernels();
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue);
}  // namespace avx2

namespace avx512 {
// AVX-512 BF16's vdpbf16ps (compiled with -mavx512bf16; bf16_gemm.h): C's columns of
// panels [first, last) (32 columns each, `panel_words` 16-bit words apart) for the m rows
// of packed A (`pairs` 32-bit bfloat16 pairs a row).
void bf16_gemm_panels(std::int64_t m, const std::uint32_t* a, std::int64_t pairs, const std::uint16_t* b,
                      std::int64_t panel_words, std::int64_t n, std::int64_t first, std::int64_t last, float* c,
                      std::int64_t ldc);
// Rows [first, last) of A (k floats, lda apart) rounded to bfloat16 pairs, `pairs` a row.
void bf16_pack_rows(std::int64_t first, std::int64_t last, const float* a, std::int64_t lda, std::int64_t k,
                    std::int64_t pairs, std::uint32_t* out);
// The same for rows [first, last) of Aᵀ, A being k × m floats (lda apart): row i's pairs
// from A's column i.
void bf16_pack_columns(std::int64_t first, std::int64_t last, const float* a, std::int64_t lda, std::int64_t k,
                       std::int64_t pairs, std::uint32_t* out);
// Panels [first, last) of B (k × n, bf16_gemm.h's Bf16PackedB layout) from B row-major
// (ldb apart) or, `transposed`, from Bᵀ (n × k row-major, ldb apart); zero past k and n.
void bf16_pack_panels(std::int64_t first, std::int64_t last, const float* b, std::int64_t ldb, bool transposed,
                      std::int64_t k, std::int64_t n, std::int64_t pairs, std::uint16_t* out);
// AVX-512 VNNI's vpdpbusd (compiled with -mavx512vnni): panels of 32 columns, k in fours.
void int8_gemm_panels(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth, const std::uint8_t* b,
                      std::int64_t panel_bytes, const std::int32_t* offsets, std::int64_t n, std::int64_t first,
                      std::int64_t last, const Int8Output& out);
const PackedGemmKernels& packed_gemm_kernels();
void gemv_row(std::int64_t n, std::int64_t k, const float* a, std::int64_t inc_a, const float* b, std::int64_t ldb,
              float* c, GemvEpilogue epilogue);
}  // namespace avx512

}  // namespace strata::cpu
