// The AVX2/FMA registers and instructions the per-instruction-set kernels are written
// with (core/cpu/packed_gemm_kernel.h, core/cpu/gemv_kernel.h): 8 floats a register, 16
// registers, masks as vectors of lanes. Included only by files compiled for AVX2 and
// nothing wider (core/cpu/avx2/, see CMakeLists.txt: -mno-avx512f, so that an AVX-512
// machine measuring this path runs what an AVX2-only one would).
#pragma once

#if !defined(__AVX2__) || !defined(__FMA__) || defined(__AVX512F__)
#error "core/cpu/avx2/ files are compiled with -mavx2 -mfma -mno-avx512f (CMakeLists.txt)"
#endif
#include <immintrin.h>

#include <cstdint>

namespace strata::cpu::avx2 {

struct Ops {
  using V = __m256;
  static constexpr int kLanes = 8;
  static constexpr int kRegisters = 16;
  // Whether a store of the first lanes of a register is as cheap as a whole one
  // (AVX-512's masked stores are; AVX2's vmaskmovps store is microcoded on AMD's cores).
  static constexpr bool kFastMaskedStore = false;
  static constexpr const char* kName = "avx2";

  static V zero() { return _mm256_setzero_ps(); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V load(const float* p) { return _mm256_load_ps(p); }  // 32-byte aligned
  static V loadu(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_store_ps(p, v); }  // 32-byte aligned
  static void storeu(float* p, V v) { _mm256_storeu_ps(p, v); }
  static V fmadd(V a, V b, V c) { return _mm256_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  // max and min return b where either is NaN (the instructions' rule).
  static V max(V a, V b) { return _mm256_max_ps(a, b); }
  static V min(V a, V b) { return _mm256_min_ps(a, b); }
  // always_inline: GCC finds a function that only prefetches free of side effects and
  // drops the calls before inlining them (the kernels lost their prefetches).
  [[gnu::always_inline]] static void prefetch(const float* p) {
    _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
  }

  // The first `count` lanes, as the number of them: AVX2 has masked moves
  // (vmaskmovps), but a masked store is slow on AMD's cores (microcoded), so whole
  // registers are moved plainly and only partial ones go through the masked forms.
  struct Mask {
    int count;
  };
  static Mask lanes(std::int64_t count) { return {count >= 8 ? 8 : count <= 0 ? 0 : static_cast<int>(count)}; }
  static __m256i lane_mask(int count) {
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  }
  // Lanes past the mask read as zero and are never touched in memory.
  static V load_masked(Mask m, const float* p) {
    if (m.count == 8) return _mm256_loadu_ps(p);
    if (m.count == 0) return _mm256_setzero_ps();
    return _mm256_maskload_ps(p, lane_mask(m.count));
  }
  static void store_masked(float* p, Mask m, V v) {
    if (m.count == 8) return _mm256_storeu_ps(p, v);
    if (m.count == 0) return;
    _mm256_maskstore_ps(p, lane_mask(m.count), v);
  }

  // Transposes 8×8 floats in registers: r[i] holds row i before, column i after
  // (unpack of floats, then shuffles of pairs, then the 128-bit halves exchanged).
  static void transpose(V r[8]) {
    V t[8], s[8];
    for (int i = 0; i < 4; ++i) {
      t[2 * i] = _mm256_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm256_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    for (int g = 0; g < 2; ++g) {
      s[4 * g + 0] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], _MM_SHUFFLE(1, 0, 1, 0));
      s[4 * g + 1] = _mm256_shuffle_ps(t[4 * g], t[4 * g + 2], _MM_SHUFFLE(3, 2, 3, 2));
      s[4 * g + 2] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(1, 0, 1, 0));
      s[4 * g + 3] = _mm256_shuffle_ps(t[4 * g + 1], t[4 * g + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int q = 0; q < 4; ++q) {
      r[q] = _mm256_permute2f128_ps(s[q], s[4 + q], 0x20);
      r[4 + q] = _mm256_permute2f128_ps(s[q], s[4 + q], 0x31);
    }
  }
};

}  // namespace strata::cpu::avx2
