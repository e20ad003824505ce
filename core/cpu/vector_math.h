// Elementwise math on a vector register of floats at a time, for the CPU kernels whose
// scalar form calls libm once per element: sigmoid and silu spent most of
// EfficientNetB0's time in expf (issue #37). A Vec is one register of the machine the
// library is built for (GCC's vector types): 16 floats with AVX-512, else 8 (AVX2; two
// SSE registers without). Wider than the machine's registers, GCC lowers the integer
// conversions and shifts of exp() element by element: a 16-float Vec made silu 5x slower
// on an AVX2 build (55% of EfficientNetB0's time). Every element of a tensor goes through
// the same function (a tail shorter than a vector is padded, not left to a scalar loop),
// so results do not depend on how a tensor is split over threads.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace strata::cpu::simd {

#if defined(__AVX512F__)
inline constexpr int kLanes = 16;
#else
inline constexpr int kLanes = 8;
#endif
using Vec = float __attribute__((vector_size(kLanes * sizeof(float))));
using Mask = std::int32_t __attribute__((vector_size(kLanes * sizeof(float))));

inline Vec load(const float* p) {
  Vec v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, Vec v) { std::memcpy(p, &v, sizeof v); }
inline Vec splat(float v) { return Vec{} + v; }

// A loop over n floats written once for whole vectors and for the floats after them:
// op(i, Vec{}) for i = 0, kLanes, ... while a whole vector fits, then op(i, 0.f) for each
// float left. op is a generic lambda; load_as and store read and write either type.
template <typename Op>
inline void for_lanes(std::int64_t n, Op op) {
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) op(i, Vec{});
  for (; i < n; ++i) op(i, 0.f);
}
inline Vec load_as(const float* p, Vec) { return load(p); }
inline float load_as(const float* p, float) { return *p; }
inline void store(float* p, float v) { *p = v; }
// a where the mask is set, else b.
inline Vec select(Mask m, Vec a, Vec b) {
  return reinterpret_cast<Vec>((m & reinterpret_cast<Mask>(a)) | (~m & reinterpret_cast<Mask>(b)));
}

// The largest lane and the sum of the lanes, across the register in halves (a tree
// log2(kLanes) deep, in registers): a loop over the lanes is a chain of kLanes dependent
// scalar steps, and GCC 12 keeps a vector whose lanes are read one by one on the stack
// through the loop that fills it. The sum's order differs from a loop's: for sums whose
// order does not matter (zeros and NaNs, integers below 2^24) or where any order serves.
// NaN lanes: the max is unspecified, the sum NaN.
#if defined(__AVX512F__)
inline float max_of_lanes(Vec v) { return _mm512_reduce_max_ps(reinterpret_cast<__m512>(v)); }
inline float sum_of_lanes(Vec v) { return _mm512_reduce_add_ps(reinterpret_cast<__m512>(v)); }
#elif defined(__AVX__)
inline float max_of_lanes(Vec v) {
  const __m256 w = reinterpret_cast<__m256>(v);
  __m128 m = _mm_max_ps(_mm256_castps256_ps128(w), _mm256_extractf128_ps(w, 1));
  m = _mm_max_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_max_ss(m, _mm_shuffle_ps(m, m, 1)));
}
inline float sum_of_lanes(Vec v) {
  const __m256 w = reinterpret_cast<__m256>(v);
  __m128 m = _mm_add_ps(_mm256_castps256_ps128(w), _mm256_extractf128_ps(w, 1));
  m = _mm_add_ps(m, _mm_movehl_ps(m, m));
  return _mm_cvtss_f32(_mm_add_ss(m, _mm_shuffle_ps(m, m, 1)));
}
#else
inline float max_of_lanes(Vec v) {
  float most = v[0];
  for (int lane = 1; lane < kLanes; ++lane) most = v[lane] > most ? v[lane] : most;
  return most;
}
inline float sum_of_lanes(Vec v) {
  float sum = 0.f;
  for (int lane = 0; lane < kLanes; ++lane) sum += v[lane];
  return sum;
}
#endif

// e^x to within 2 ulp for x in [−87.3365447, 88.3762626], not NaN: x = n·ln 2 + r with
// |r| <= ln 2 / 2 (ln 2 in two parts, so r is exact), e^r by Cephes's polynomial, 2^n by
// building the exponent. exp() below for any x; silu and erfc bring their arguments into
// the range themselves and skip exp()'s tests (a third of its instructions).
inline Vec exp_in_range(Vec x) {
  // n = round(x / ln 2): floor(x·log2(e) + 0.5). With AVX-512, one conversion rounding
  // down (the same n); otherwise from a truncation corrected for negatives.
  const Vec t = x * 1.44269504088896341f + 0.5f;
#if defined(__AVX512F__)
  const Mask n_int = reinterpret_cast<Mask>(
      _mm512_cvt_roundps_epi32(reinterpret_cast<__m512>(t), _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC));
  const Vec n = __builtin_convertvector(n_int, Vec);
#else
  Vec n = __builtin_convertvector(__builtin_convertvector(t, Mask), Vec);
  n = select(n > t, n - 1.0f, n);
  const Mask n_int = __builtin_convertvector(n, Mask);
#endif
  const Vec r = x - n * 0.693359375f - n * -2.12194440e-4f;
  Vec p = splat(1.9875691500e-4f);
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const Vec er = p * (r * r) + r + 1.0f;
  const Vec two_n = reinterpret_cast<Vec>((n_int + 127) << 23);
  return er * two_n;
}

// x clamped to [lo, hi]; NaN becomes lo (for exp_in_range's callers whose result is NaN
// through another operand). The x86 max and min return their second operand unless the
// first is strictly larger (smaller), NaN included: exactly the selects of the portable
// form, in two instructions where GCC 12 made six of them (silu's loop went from 28 to 24).
inline Vec clamp(Vec x, float lo, float hi) {
#if defined(__AVX512F__)
  const __m512 low = _mm512_max_ps(reinterpret_cast<__m512>(x), _mm512_set1_ps(lo));
  return reinterpret_cast<Vec>(_mm512_min_ps(low, _mm512_set1_ps(hi)));
#elif defined(__AVX__)
  const __m256 low = _mm256_max_ps(reinterpret_cast<__m256>(x), _mm256_set1_ps(lo));
  return reinterpret_cast<Vec>(_mm256_min_ps(low, _mm256_set1_ps(hi)));
#else
  const Vec low = select(x > lo, x, splat(lo));
  return select(low < hi, low, splat(hi));
#endif
}

// e^x for any x: exp_in_range within its range; above 88.376 +inf (a little early: 2^128
// has no exponent, and e^x passes the largest float only at 88.72), below −87.337 (where
// e^x leaves the normal floats) 0; NaN stays NaN.
inline Vec exp(Vec x) {
  const Vec hi = splat(88.3762626f), lo = splat(-87.3365447f);
  const Mask overflow = x > hi, underflow = x < lo, nan = x != x;
  const Vec clamped = select(overflow, splat(88.0f), select(underflow, splat(-87.0f), select(nan, Vec{}, x)));
  Vec y = exp_in_range(clamped);
  y = select(overflow, splat(__builtin_inff()), y);
  y = select(underflow, Vec{}, y);
  return select(nan, x, y);
}

// erfc(x) to within about 1.2e-7 of its value everywhere (Numerical Recipes' erfcc:
// t·e^(−x² + P(t)) with t = 1 / (1 + |x|/2), and 2 − that for x < 0), so that 1 + erf
// keeps its relative precision far into the negative tail, where 1 + erf(x) computed
// from an erf would lose it.
inline Vec erfc(Vec x) {
  const Mask negative = x < 0.0f;
  const Vec z = select(negative, -x, x);
  const Vec t = 1.0f / (1.0f + 0.5f * z);
  Vec p = splat(0.17087277f);
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  // The exponent, ln(erfc(z) / t), is at most 0. Below −87.34, where e^x leaves the normal
  // floats, r is 0, as through exp(); exp_in_range is given 0 there, not the lowest
  // exponent, whose e^x times t would be a denormal (a slow microcode assist each: gelu
  // took 1.4x as long on values down to −100). NaN: t is NaN, and so is r.
  const Vec exponent = p - z * z;
  const Mask below = exponent < -87.3365447f;
  const Vec r = select(below, Vec{}, t * exp_in_range(select(below, Vec{}, exponent)));
  return select(negative, 2.0f - r, r);
}

// x·Φ(x), Keras's exact gelu: x/2 · erfc(−x/√2).
inline Vec gelu(Vec x) { return 0.5f * x * erfc(x * -0.70710678118654752f); }

// 1 / (1 + e^−x): e^−x overflows to +inf far below 0, giving 0, as it should.
inline Vec sigmoid(Vec x) { return 1.0f / (1.0f + exp(-x)); }
// x·sigmoid(x), as x / (1 + e^−x), with −x clamped to exp_in_range's range: the same bits as
// through exp() but where x < −88.38, whose x / (1 + 2.4e38) is within 1e−36 of the −0 that
// e^−x = +inf gave (x > 87.34 gives x either way). NaN stays NaN through the numerator.
inline Vec silu(Vec x) { return x / (1.0f + exp_in_range(clamp(-x, -87.3365447f, 88.3762626f))); }

// y[i] = f(x[i]) for i < n, a vector at a time; the tail through a padded vector.
template <typename F>
void apply(const float* x, float* y, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, f(load(x + i)));
  if (i < n) {
    float in[kLanes] = {}, out[kLanes];
    std::memcpy(in, x + i, static_cast<std::size_t>(n - i) * sizeof(float));
    store(out, f(load(in)));
    std::memcpy(y + i, out, static_cast<std::size_t>(n - i) * sizeof(float));
  }
}

}  // namespace strata::cpu::simd
