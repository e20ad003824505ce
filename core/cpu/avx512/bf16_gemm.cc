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

namespace {

// Word indices interleaving two vectors of 32 bfloat16 (x, y) into pairs (x[j] | y[j] << 16):
// columns 0-15 (kInterleaveLow), 16-31 (kInterleaveHigh); for _mm512_permutex2var_epi16,
// where an index from 32 picks y's word.
__m512i interleave_indices(int from) {
  alignas(64) std::int16_t idx[32];
  for (int t = 0; t < 16; ++t) {
    idx[2 * t] = static_cast<std::int16_t>(from + t);
    idx[2 * t + 1] = static_cast<std::int16_t>(32 + from + t);
  }
  return _mm512_load_si512(idx);
}

// 16 bfloat16 pairs (even[t] | odd[t] << 16) of two vectors of 16 floats, rounded to
// nearest even (subnormals to zero, as vdpbf16ps reads them).
__m512i pairs_of(__m512 even, __m512 odd) {
  alignas(64) static const std::int16_t kPairUp[32] = {0, 16, 1, 17, 2,  18, 3,  19, 4,  20, 5,  21, 6,  22, 7,  23,
                                                        8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31};
  const __m512i words = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(odd, even));  // even's in words 0-15
  return _mm512_permutexvar_epi16(_mm512_load_si512(kPairUp), words);
}

}  // namespace

void bf16_pack_columns(std::int64_t first, std::int64_t last, const float* a, std::int64_t lda, std::int64_t k,
                       std::int64_t pairs, std::uint32_t* out) {
  // Rows i..i+15 of Aᵀ at once: A's rows 2q and 2q + 1 over those 16 columns give their
  // pair q, scattered `pairs` apart.
  const __m512i apart = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(static_cast<int>(pairs)));
  for (std::int64_t i = first; i < last; i += 16) {
    const __mmask16 lanes = Ops::lanes(last - i);
    for (std::int64_t q = 0; q < pairs; ++q) {
      const __m512 even = _mm512_maskz_loadu_ps(lanes, a + 2 * q * lda + i);
      const __m512 odd = 2 * q + 1 < k ? _mm512_maskz_loadu_ps(lanes, a + (2 * q + 1) * lda + i) : _mm512_setzero_ps();
      _mm512_mask_i32scatter_epi32(out + i * pairs + q, lanes, apart, pairs_of(even, odd), 4);
    }
  }
}

void bf16_pack_panels(std::int64_t first, std::int64_t last, const float* b, std::int64_t ldb, bool transposed,
                      std::int64_t k, std::int64_t n, std::int64_t pairs, std::uint16_t* out) {
  const std::int64_t panel_words = 2 * pairs * kBf16PanelWidth;
  if (!transposed) {
    // Rows 2q and 2q + 1 over the panel's 32 columns, interleaved word by word.
    const __m512i low = interleave_indices(0), high = interleave_indices(16);
    for (std::int64_t p = first; p < last; ++p) {
      const std::int64_t col0 = p * kBf16PanelWidth, cols = std::min(kBf16PanelWidth, n - col0);
      const __mmask16 lanes0 = Ops::lanes(cols), lanes1 = Ops::lanes(cols - 16);
      std::uint16_t* panel = out + p * panel_words;
      for (std::int64_t q = 0; q < pairs; ++q) {
        const float* even = b + 2 * q * ldb + col0;
        const __m512i e = reinterpret_cast<__m512i>(
            _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(lanes1, even + 16), _mm512_maskz_loadu_ps(lanes0, even)));
        __m512i o = _mm512_setzero_si512();
        if (2 * q + 1 < k) {
          const float* odd = even + ldb;
          o = reinterpret_cast<__m512i>(
              _mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(lanes1, odd + 16), _mm512_maskz_loadu_ps(lanes0, odd)));
        }
        _mm512_storeu_si512(panel + q * 2 * kBf16PanelWidth, _mm512_permutex2var_epi16(e, low, o));
        _mm512_storeu_si512(panel + q * 2 * kBf16PanelWidth + 32, _mm512_permutex2var_epi16(e, high, o));
      }
    }
    return;
  }
  // Bᵀ's row j is B's column j: its consecutive bfloat16 are its pairs, scattered 32 apart.
  const __m512i apart = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                           _mm512_set1_epi32(static_cast<int>(kBf16PanelWidth)));
  for (std::int64_t p = first; p < last; ++p) {
    auto* panel = reinterpret_cast<std::uint32_t*>(out + p * panel_words);
    for (std::int64_t j = 0; j < kBf16PanelWidth; ++j) {
      const std::int64_t col = p * kBf16PanelWidth + j;
      for (std::int64_t s = 0; s < 2 * pairs; s += 32) {
        const __mmask16 lanes = Ops::lanes((2 * pairs - s) / 2);
        __m512i both = _mm512_setzero_si512();
        if (col < n) {
          const float* row = b + col * ldb;
          both = reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(_mm512_maskz_loadu_ps(Ops::lanes(k - s - 16), row + s + 16),
                                                               _mm512_maskz_loadu_ps(Ops::lanes(k - s), row + s)));
        }
        _mm512_mask_i32scatter_epi32(panel + (s / 2) * kBf16PanelWidth + j, lanes, apart, both, 4);
      }
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
