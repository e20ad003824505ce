// The int8 product for AVX2 (int8_gemm.h; the flags in CMakeLists.txt), and for AVX-512
// machines without VNNI. int8_gemm.cc calls it there.
//
// Operands widened to int16 when packed; a register tile of 6 rows × 16 columns of C (12
// accumulators of 8 int32): per two steps of k, two loads of packed B (16 columns × 2
// steps, a column's two steps side by side in each lane) and, per row, one broadcast of
// the row's two values of A into two vpmaddwd, each two products a lane summed exactly
// into int32.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu/isa_kernels.h"

namespace strata::cpu::avx2 {

namespace {

constexpr std::int64_t kInt8TileRows = 6;
constexpr std::int64_t kInt8PanelWidth = kInt8Avx2PanelWidth;
static_assert(kInt8PanelWidth == 16 && kInt8Avx2DepthGroup == 2, "two registers of 8 int32, two int16 a lane");

// Rows [0, R) of packed A (rows of `depth` int16; row0 the first's index in the product)
// times one panel of B (its first column col0), written as `out` says for the panel's
// first `cols` columns (AVX2's path has no offsets: both operands are signed).
// The loops over rows are unrolled on request (#pragma GCC unroll, which clang reads
// too): left to GCC 12 at -O2, the largest tile's were not, and its accumulators lived on
// the stack, a load and a store around every multiply-add.
template <int R>
void int8_tile(const std::int16_t* a, std::int64_t depth, const std::int16_t* b, const Int8Output& out,
               std::int64_t row0, std::int64_t col0, std::int64_t cols) {
  __m256i acc[R][2];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
  for (std::int64_t s = 0; s < depth; s += kInt8Avx2DepthGroup) {
    const __m256i b0 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + s * kInt8PanelWidth));
    const __m256i b1 = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + s * kInt8PanelWidth + 16));
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      std::int32_t pair;
      std::memcpy(&pair, a + r * depth + s, sizeof pair);
      const __m256i a2 = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(a2, b0));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(a2, b1));
    }
  }
  // Through a buffer in L1, as the AVX-512 tile's (which GCC 12 otherwise spilled).
  alignas(32) std::int32_t sums[R][kInt8PanelWidth];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums[r]), acc[r][0]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(sums[r] + 8), acc[r][1]);
  }
  for (int r = 0; r < R; ++r) {
    const std::int64_t row = row0 + r;
    if (out.values == nullptr) {
      std::memcpy(out.sums + row * out.ld + col0, sums[r], static_cast<std::size_t>(cols) * sizeof(std::int32_t));
      continue;
    }
    float* y = out.values + row * out.ld + col0;
    const float row_scale = out.row_scales[row];
    if (cols < kInt8PanelWidth) {  // the last panel's columns, one at a time
      for (std::int64_t j = 0; j < cols; ++j) {
        y[j] = int8_rescaled(sums[r][j], out.column_scales[col0 + j], row_scale, out.bias, col0 + j, out.relu);
      }
      continue;
    }
    // int8_rescaled, 8 columns at a time; max(v, 0) gives its second operand, +0, for NaN
    // and for -0, as v > 0 ? v : 0.
    for (int h = 0; h < 2; ++h) {
      const __m256 sum = _mm256_cvtepi32_ps(_mm256_load_si256(reinterpret_cast<const __m256i*>(sums[r] + 8 * h)));
      __m256 v = _mm256_div_ps(sum, _mm256_mul_ps(_mm256_loadu_ps(out.column_scales + col0 + 8 * h),
                                                 _mm256_set1_ps(row_scale)));
      if (out.bias) v = _mm256_add_ps(v, _mm256_loadu_ps(out.bias + col0 + 8 * h));
      if (out.relu) v = _mm256_max_ps(v, _mm256_setzero_ps());
      _mm256_storeu_ps(y + 8 * h, v);
    }
  }
}

template <int R>
void int8_rows(std::int64_t rows, const std::int16_t* a, std::int64_t depth, const std::int16_t* b,
               const Int8Output& out, std::int64_t row0, std::int64_t col0, std::int64_t cols) {
  if constexpr (R > 1) {
    if (rows < R) return int8_rows<R - 1>(rows, a, depth, b, out, row0, col0, cols);
  }
  int8_tile<R>(a, depth, b, out, row0, col0, cols);
}

}  // namespace

void int8_gemm_panels(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth, const std::uint8_t* b,
                      std::int64_t panel_bytes, const std::int32_t* /*offsets*/, std::int64_t n, std::int64_t first,
                      std::int64_t last, const Int8Output& out) {
  const auto* a16 = reinterpret_cast<const std::int16_t*>(a);
  for (std::int64_t p = first; p < last; ++p) {
    const auto* panel = reinterpret_cast<const std::int16_t*>(b + p * panel_bytes);
    const std::int64_t col0 = p * kInt8PanelWidth, cols = std::min(kInt8PanelWidth, n - col0);
    for (std::int64_t i = 0; i < m; i += kInt8TileRows) {
      int8_rows<kInt8TileRows>(std::min(kInt8TileRows, m - i), a16 + i * padded_depth, padded_depth, panel, out, i,
                               col0, cols);
    }
  }
}

}  // namespace strata::cpu::avx2
