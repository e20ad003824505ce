// The bfloat16 product for AVX-512 BF16 (bf16_gemm.h; the flags in CMakeLists.txt: this
// file alone adds -mavx512bf16). bf16_gemm.cc calls it where the CPU has AVX-512 BF16 and
// cpu::kernel_isa() is avx512.
//
// A register tile of 12 rows × 32 columns of C (24 accumulators of 16 floats): per pair
// of steps of k, two loads of packed B (32 columns, a column's two bfloat16 side by side
// in each lane) and, per row, one broadcast of the row's pair into two vdpbf16ps, each two
// products a lane added to the float32 sums.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "core/cpu/avx512/ops.h"
#include "core/cpu/isa_kernels.h"

#if !defined(__AVX512BF16__)
#error "core/cpu/avx512/bf16_gemm.cc is compiled with -mavx512bf16 (CMakeLists.txt)"
#endif

namespace strata::cpu::avx512 {

namespace {

constexpr std::int64_t kBf16TileRows = 12;
constexpr std::int64_t kBf16PanelWidth = 32;

// Rows [0, R) of packed A (`pairs` 32-bit pairs a row) times one panel of B into C's
// first `cols` columns. The accumulators leave through a buffer in L1, as the int8 tile's
// (int8_gemm.cc): stored from registers with masks, GCC 12 kept half of them on the stack.
template <int R>
void bf16_tile(const std::uint32_t* a, std::int64_t pairs, const std::uint16_t* b, float* c, std::int64_t ldc,
               std::int64_t cols) {
  __m512 acc[R][2];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
  for (std::int64_t p = 0; p < pairs; ++p) {
    const __m512bh b0 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + p * 2 * kBf16PanelWidth));
    const __m512bh b1 = reinterpret_cast<__m512bh>(_mm512_loadu_si512(b + p * 2 * kBf16PanelWidth + 32));
    #pragma GCC unroll 16
    for (int r = 0; r < R; ++r) {
      const __m512bh a2 = reinterpret_cast<__m512bh>(_mm512_set1_epi32(static_cast<int>(a[r * pairs + p])));
      acc[r][0] = _mm512_dpbf16_ps(acc[r][0], a2, b0);
      acc[r][1] = _mm512_dpbf16_ps(acc[r][1], a2, b1);
    }
  }
  alignas(64) float sums[R][kBf16PanelWidth];
  #pragma GCC unroll 16
  for (int r = 0; r < R; ++r) {
    _mm512_store_ps(sums[r], acc[r][0]);
    _mm512_store_ps(sums[r] + 16, acc[r][1]);
  }
  const __mmask16 lanes0 = Ops::lanes(cols), lanes1 = Ops::lanes(cols - 16);
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(c + r * ldc, lanes0, _mm512_load_ps(sums[r]));
    _mm512_mask_storeu_ps(c + r * ldc + 16, lanes1, _mm512_load_ps(sums[r] + 16));
  }
}

template <int R>
void bf16_rows(std::int64_t rows, const std::uint32_t* a, std::int64_t pairs, const std::uint16_t* b, float* c,
               std::int64_t ldc, std::int64_t cols) {
  if constexpr (R > 1) {
    if (rows < R) return bf16_rows<R - 1>(rows, a, pairs, b, c, ldc, cols);
  }
  bf16_tile<R>(a, pairs, b, c, ldc, cols);
}

}  // namespace

void bf16_pack_rows(std::int64_t first, std::int64_t last, const float* a, std::int64_t lda, std::int64_t k,
                    std::int64_t pairs, std::uint32_t* out) {
  // A row's consecutive bfloat16 are its pairs, the even step in each lane's low half:
  // vcvtne2ps2bf16 rounds 32 floats a time (to nearest even; subnormals to zero, which
  // vdpbf16ps would make of them anyway), zeros past k.
  for (std::int64_t i = first; i < last; ++i) {
    const float* row = a + i * lda;
    auto* words = reinterpret_cast<std::uint16_t*>(out + i * pairs);
    for (std::int64_t s = 0; s < 2 * pairs; s += 32) {
      const __m512 low = _mm512_maskz_loadu_ps(Ops::lanes(k - s), row + s);
      const __m512 high = _mm512_maskz_loadu_ps(Ops::lanes(k - s - 16), row + s + 16);
      const __m512i both = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low));
      const std::int64_t left = 2 * pairs - s;
      const __mmask32 store = left >= 32 ? __mmask32(0xFFFFFFFFu) : __mmask32((1u << left) - 1);
      _mm512_mask_storeu_epi16(words + s, store, both);
    }
  }
}

void bf16_gemm_panels(std::int64_t m, const std::uint32_t* a, std::int64_t pairs, const std::uint16_t* b,
                      std::int64_t panel_words, std::int64_t n, std::int64_t first, std::int64_t last, float* c,
                      std::int64_t ldc) {
  for (std::int64_t p = first; p < last; ++p) {
    const std::int64_t col0 = p * kBf16PanelWidth, cols = std::min(kBf16PanelWidth, n - col0);
    for (std::int64_t i = 0; i < m; i += kBf16TileRows) {
      bf16_rows<kBf16TileRows>(std::min(kBf16TileRows, m - i), a + i * pairs, pairs, b + p * panel_words,
                               c + i * ldc + col0, ldc, cols);
    }
  }
}

}  // namespace strata::cpu::avx512
