// Keras's AbsMaxQuantizer over one row, as its int8 Dense and EinsumDense quantize their
// input on every call (dense_int8's CPU kernel, core/cpu/kernels/matmul.cc): scale = 127 /
// (max |x| + 1e-7), values = clip(round_half_even(x · scale), -127, 127), a vector of
// floats at a time. A scalar loop per element (libm's nearbyint, a clamp, a finiteness
// test) took longer than the int8 product it fed on the MLP at batch 128.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "core/cpu/vector_math.h"

namespace strata::cpu {

// x · scale must round before the rounding constant is added, as Keras's multiply does:
// GCC fuses a multiply and an add into one FMA wherever it sees both. The product passes
// through an empty asm statement, which the compiler cannot see through, so it exists as
// a rounded float of its own.
inline simd::Vec rounded_apart(simd::Vec v) {
#if defined(__AVX512F__)
  asm("" : "+v"(v));
#elif defined(__AVX__)
  asm("" : "+x"(v));
#else
  asm("" : "+m"(v));  // two SSE registers: through memory
#endif
  return v;
}

// Writes the row's int8 values into q and returns its scale; a row with NaN or an
// infinity (whose scale Keras makes NaN or 0, and whose values it casts from NaN) gets a
// NaN scale and zeros, so that every output of the row is NaN. Each byte written is
// XORed with `flip`: 0x80 writes value + 128 as an unsigned byte, as VNNI's packed rows
// hold them (int8_gemm.cc), without a pass of its own.
inline float quantize_row_int8(const float* x, std::int64_t n, std::int8_t* q, std::uint8_t flip = 0) {
  using simd::kLanes;
  using simd::Vec;
  using Int8s = std::int8_t __attribute__((vector_size(kLanes)));
  // Rounding half to even by adding and taking away 1.5 · 2^23: the sum lands where the
  // floats are the integers, in the default rounding mode, for |v| < 2^22 (here <= 127).
  constexpr float kRound = 12582912.f;
  Vec largest{}, poison{};  // poison sums x · 0: NaN where any x is NaN or infinite
  std::int64_t i = 0;
  // Vector conditionals (vmaxps, vandps), not simd::select: through its casts GCC 12 kept
  // `largest` on the stack, a store and a reload each step, and this loop took 40% of an
  // int8 MLP's predictions.
  for (; i + kLanes <= n; i += kLanes) {
    const Vec v = simd::load(x + i);
    const Vec magnitude = v < 0.f ? -v : v;
    largest = magnitude > largest ? magnitude : largest;
    poison += v * 0.f;
  }
  // Across the lanes in halves (simd::max_of_lanes): a row of 64 floats (a Transformer's
  // projections) spent more time in a loop over the lanes, 2 · kLanes dependent scalar
  // steps, than in its share of the int8 product.
  float most = std::max(0.f, simd::max_of_lanes(largest)), nan_if_not_finite = simd::sum_of_lanes(poison);
  for (std::int64_t t = i; t < n; ++t) {
    most = std::max(most, std::fabs(x[t]));
    nan_if_not_finite += x[t] * 0.f;
  }
  if (nan_if_not_finite != 0.f) {  // NaN compares unequal to everything
    std::memset(q, flip, static_cast<std::size_t>(n));
    return std::numeric_limits<float>::quiet_NaN();
  }
  const float scale = 127.f / (most + 1e-7f);
  for (i = 0; i + kLanes <= n; i += kLanes) {
    const Vec scaled = rounded_apart(simd::load(x + i) * scale);
    const Vec rounded = (scaled + kRound) - kRound;
    // Whole numbers in [-127, 127]: to int32 lanes, then narrowed (vpmovdb); converted
    // straight to int8 GCC went lane by lane. Keras's clip to [-127, 127] changes no
    // finite value, so it is not done: |x| <= most and scale <= (127 / most)(1 + 2^-24)^2,
    // so |x · scale| <= 127 (1 + 2^-24)^3 < 127.5, which rounds to 127 at most.
    const simd::Mask whole = __builtin_convertvector(rounded, simd::Mask);
    const Int8s values = __builtin_convertvector(whole, Int8s) ^ static_cast<std::int8_t>(flip);
    std::memcpy(q + i, &values, sizeof values);
  }
  for (; i < n; ++i) {
    q[i] = static_cast<std::int8_t>(static_cast<std::int8_t>(std::clamp(std::nearbyint(x[i] * scale), -127.f, 127.f)) ^
                                    static_cast<std::int8_t>(flip));
  }
  return scale;
}

}  // namespace strata::cpu
