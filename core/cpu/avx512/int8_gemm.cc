// The int8 product for AVX-512 VNNI (int8_gemm.h; the flags in CMakeLists.txt: this file
// alone adds -mavx512vnni). int8_gemm.cc calls it where the CPU has VNNI and
// cpu::kernel_isa() is avx512.
//
// A register tile of 12 rows × 32 columns of C (24 accumulators of 16 int32): per four
// steps of k, two loads of packed B (32 columns × 4 steps, a column's four steps side by
// side in each lane) and, per row, one broadcast of the row's four bytes of A into two
// vpdpbusd, each four products a lane summed into int32 without saturation.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu/avx512/ops.h"
#include "core/cpu/isa_kernels.h"

#if !defined(__AVX512VNNI__)
#error "core/cpu/avx512/int8_gemm.cc is compiled with -mavx512vnni (CMakeLists.txt)"
#endif

namespace strata::cpu::avx512 {

namespace {

constexpr std::int64_t kInt8TileRows = 12;
constexpr std::int64_t kInt8PanelWidth = kInt8Avx512PanelWidth;
static_assert(kInt8PanelWidth == 32 && kInt8Avx512DepthGroup == 4, "two registers of 16 int32, four bytes a lane");

// Rows [0, R) of packed A (rows of `depth` unsigned bytes; row0 the first's index in the
// product) times one panel of B (its first column col0), minus the panel's column
// offsets, written as `out` says for the panel's first `cols` columns.
// The loops over rows are unrolled on request (#pragma GCC unroll, which clang reads
// too): left to GCC 12 at -O2, the largest tile's were not, and its accumulators lived on
// the stack, a load and a store around every multiply-add.
template <int R>
void int8_tile(const std::uint8_t* a, std::int64_t depth, const std::uint8_t* b, const std::int32_t* offsets,
               const Int8Output& out, std::int64_t row0, std::int64_t col0, std::int64_t cols) {
  __m512i acc[R][2];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_si512();
  // vpdpbusd, not its saturating twin vpdpbusds: a sum of (a + 128) · b may pass int32
  // (255 · 128 · 131071 > 2^31), and wrapping keeps it right modulo 2^32, where the
  // offset taken off below brings the true sum, which int32 holds (int8_gemm.h).
  for (std::int64_t s = 0; s < depth; s += kInt8Avx512DepthGroup) {
    const __m512i b0 = _mm512_loadu_si512(b + s * kInt8PanelWidth);
    const __m512i b1 = _mm512_loadu_si512(b + s * kInt8PanelWidth + 64);
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      std::int32_t quad;
      std::memcpy(&quad, a + r * depth + s, sizeof quad);
      const __m512i a4 = _mm512_set1_epi32(quad);
      acc[r][0] = _mm512_dpbusd_epi32(acc[r][0], a4, b0);
      acc[r][1] = _mm512_dpbusd_epi32(acc[r][1], a4, b1);
    }
  }
  // The accumulators leave through a buffer in L1 before the offsets and masks meet them:
  // where the stores below took them straight from registers, GCC 12 kept half of them on
  // the stack through the loop above (a load and a store around each vpdpbusd), and the
  // product ran at 40% of VNNI's rate instead of 90%.
  alignas(64) std::int32_t sums[R][kInt8PanelWidth];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm512_store_si512(sums[r], acc[r][0]);
    _mm512_store_si512(sums[r] + 16, acc[r][1]);
  }
  const __m512i offset[2] = {_mm512_loadu_si512(offsets), _mm512_loadu_si512(offsets + 16)};
  const __mmask16 lanes[2] = {Ops::lanes(cols), Ops::lanes(cols - 16)};
  if (out.values == nullptr) {
    for (int r = 0; r < R; ++r) {
      std::int32_t* c = out.sums + (row0 + r) * out.ld + col0;
      for (int h = 0; h < 2; ++h) {
        _mm512_mask_storeu_epi32(c + 16 * h, lanes[h], _mm512_sub_epi32(_mm512_load_si512(sums[r] + 16 * h), offset[h]));
      }
    }
    return;
  }
  // dense_int8's rescale (isa_kernels.h: int8_rescaled), 16 columns at a time: lanes past
  // the panel's columns divide by zero and are not stored.
  __m512 column_scale[2], bias[2];
  for (int h = 0; h < 2; ++h) {
    column_scale[h] = _mm512_maskz_loadu_ps(lanes[h], out.column_scales + col0 + 16 * h);
    bias[h] = out.bias ? _mm512_maskz_loadu_ps(lanes[h], out.bias + col0 + 16 * h) : _mm512_setzero_ps();
  }
  for (int r = 0; r < R; ++r) {
    const __m512 row_scale = _mm512_set1_ps(out.row_scales[row0 + r]);
    float* y = out.values + (row0 + r) * out.ld + col0;
    for (int h = 0; h < 2; ++h) {
      const __m512 sum = _mm512_cvtepi32_ps(_mm512_sub_epi32(_mm512_load_si512(sums[r] + 16 * h), offset[h]));
      __m512 v = _mm512_div_ps(sum, _mm512_mul_ps(column_scale[h], row_scale));
      if (out.bias) v = _mm512_add_ps(v, bias[h]);
      // max(v, 0) gives its second operand, +0, for NaN and for -0, as v > 0 ? v : 0.
      if (out.relu) v = _mm512_max_ps(v, _mm512_setzero_ps());
      _mm512_mask_storeu_ps(y + 16 * h, lanes[h], v);
    }
  }
}

template <int R>
void int8_rows(std::int64_t rows, const std::uint8_t* a, std::int64_t depth, const std::uint8_t* b,
               const std::int32_t* offsets, const Int8Output& out, std::int64_t row0, std::int64_t col0,
               std::int64_t cols) {
  if constexpr (R > 1) {
    if (rows < R) return int8_rows<R - 1>(rows, a, depth, b, offsets, out, row0, col0, cols);
  }
  int8_tile<R>(a, depth, b, offsets, out, row0, col0, cols);
}

}  // namespace

void int8_gemm_panels(std::int64_t m, const std::uint8_t* a, std::int64_t padded_depth, const std::uint8_t* b,
                      std::int64_t panel_bytes, const std::int32_t* offsets, std::int64_t n, std::int64_t first,
                      std::int64_t last, const Int8Output& out) {
  for (std::int64_t p = first; p < last; ++p) {
    const std::int64_t col0 = p * kInt8PanelWidth, cols = std::min(kInt8PanelWidth, n - col0);
    for (std::int64_t i = 0; i < m; i += kInt8TileRows) {
      int8_rows<kInt8TileRows>(std::min(kInt8TileRows, m - i), a + i * padded_depth, padded_depth, b + p * panel_bytes,
                               offsets + col0, out, i, col0, cols);
    }
  }
}

}  // namespace strata::cpu::avx512
