// The AVX-512 registers and instructions the per-instruction-set kernels are written
// with (core/cpu/packed_gemm_kernel.h, core/cpu/gemv_kernel.h): 16 floats a register,
// masked loads and stores, 32 registers. Included only by files compiled for AVX-512
// (core/cpu/avx512/, see CMakeLists.txt), which run only where cpu::kernel_isa() says.
#pragma once

#if !defined(__AVX512F__)
#error "core/cpu/avx512/ files are compiled with -mavx512f (CMakeLists.txt)"
#endif
#if defined(__GNUC__) && !defined(__clang__)
// GCC 12 reports its own masked-load intrinsics' internal placeholder as possibly
// uninitialized (the masked lanes are zeroed by definition).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>

#include <cstdint>

namespace strata::cpu::avx512 {

struct Ops {
  using V = __m512;
  static constexpr int kLanes = 16;
  static constexpr int kRegisters = 32;
  // Whether a store of the first lanes of a register is as cheap as a whole one
  // (AVX-512's masked stores are; AVX2's vmaskmovps store is microcoded on AMD's cores).
  static constexpr bool kFastMaskedStore = true;
  static constexpr const char* kName = "avx512";

  static V zero() { return _mm512_setzero_ps(); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V load(const float* p) { return _mm512_load_ps(p); }  // 64-byte aligned
  static V loadu(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_store_ps(p, v); }  // 64-byte aligned
  static void storeu(float* p, V v) { _mm512_storeu_ps(p, v); }
  static V fmadd(V a, V b, V c) { return _mm512_fmadd_ps(a, b, c); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  // max and min return b where either is NaN (the instructions' rule).
  static V max(V a, V b) { return _mm512_max_ps(a, b); }
  static V min(V a, V b) { return _mm512_min_ps(a, b); }
  // always_inline: GCC finds a function that only prefetches free of side effects and
  // drops the calls before inlining them (the kernels lost their prefetches).
  [[gnu::always_inline]] static void prefetch(const float* p) {
    _mm_prefetch(reinterpret_cast<const char*>(p), _MM_HINT_T0);
  }

  // The first `count` lanes (none when count <= 0, all when >= 16).
  using Mask = __mmask16;
  static Mask lanes(std::int64_t count) {
    return count >= 16 ? Mask(0xFFFF) : count <= 0 ? Mask(0) : Mask((1u << count) - 1);
  }
  // Lanes past the mask read as zero and are never touched in memory.
  static V load_masked(Mask m, const float* p) { return _mm512_maskz_loadu_ps(m, p); }
  static void store_masked(float* p, Mask m, V v) { _mm512_mask_storeu_ps(p, m, v); }

  // Transposes 16×16 floats in registers: r[i] holds row i before, column i after.
  // Pairs of rows interleave (unpack of floats, then of float pairs) so that each 128-bit
  // lane of r[4g+q] holds rows 4g..4g+3 at column 4·lane+q; two rounds of 128-bit lane
  // shuffles then gather the four lanes of each column.
  static void transpose(V r[16]) {
    V t[16];
    for (int i = 0; i < 8; ++i) {
      t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
      t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    auto pd = [](V v) { return _mm512_castps_pd(v); };
    for (int g = 0; g < 4; ++g) {
      r[4 * g + 0] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[4 * g]), pd(t[4 * g + 2])));
      r[4 * g + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[4 * g]), pd(t[4 * g + 2])));
      r[4 * g + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(pd(t[4 * g + 1]), pd(t[4 * g + 3])));
      r[4 * g + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(pd(t[4 * g + 1]), pd(t[4 * g + 3])));
    }
    for (int q = 0; q < 4; ++q) {
      t[q] = _mm512_shuffle_f32x4(r[q], r[4 + q], 0x88);      // lanes 0, 2 of each
      t[4 + q] = _mm512_shuffle_f32x4(r[q], r[4 + q], 0xdd);  // lanes 1, 3
      t[8 + q] = _mm512_shuffle_f32x4(r[8 + q], r[12 + q], 0x88);
      t[12 + q] = _mm512_shuffle_f32x4(r[8 + q], r[12 + q], 0xdd);
    }
    for (int q = 0; q < 4; ++q) {
      r[q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0x88);
      r[8 + q] = _mm512_shuffle_f32x4(t[q], t[8 + q], 0xdd);
      r[4 + q] = _mm512_shuffle_f32x4(t[4 + q], t[12 + q], 0x88);
      r[12 + q] = _mm512_shuffle_f32x4(t[4 + q], t[12 + q], 0xdd);
    }
  }
};

}  // namespace strata::cpu::avx512
