// A float32 rounded to the nearest bfloat16 or float16 and widened back, bit for bit as a
// cast to that dtype and back (round to nearest, ties to even; NaN stays NaN; float16
// overflows to ±infinity at 65520 and keeps its subnormals down to 2^-24): how Strata
// emulates Keras's bfloat16 and float16 computation (docs/precision.md, "Mixed
// precision"), in the CPU and CUDA kernels of the round_to_bfloat16 / round_to_float16
// ops and wherever a file's bfloat16 or float16 values are written.
#pragma once

#include <cstdint>
#include <cstring>

#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata {

STRATA_HOST_DEVICE inline std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
#endif
}

STRATA_HOST_DEVICE inline float bits_float(std::uint32_t bits) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
#endif
}

// bfloat16 is float32's top 16 bits: the low 16 rounded away, ties to the even top.
// Subnormals round as the others (as Eigen's and ml_dtypes' conversions, which
// TensorFlow and NumPy use; AVX-512 BF16's vcvtneps2bf16 flushes them to zero instead).
// Without a branch, so that the CPU kernel's loop vectorizes.
STRATA_HOST_DEVICE inline float round_to_bfloat16(float x) {
  const std::uint32_t bits = float_bits(x);
  const std::uint32_t rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
  const bool nan = (bits & 0x7fffffffu) > 0x7f800000u;  // kept as it is
  return bits_float(nan ? bits : rounded);
}

// float16: 11 significant bits from 2^-14 up (13 of float32's 23 fraction bits rounded
// away, a carry moving into the exponent as it should), steps of 2^-24 below.
STRATA_HOST_DEVICE inline float round_to_float16(float x) {
  const std::uint32_t bits = float_bits(x);
  const std::uint32_t magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u;
  if (magnitude > 0x7f800000u) return x;                                     // NaN
  if (magnitude >= 0x477ff000u) return bits_float(sign | 0x7f800000u);       // >= 65520: ±infinity
  if (magnitude >= 0x38800000u) {                                            // >= 2^-14: normal
    const std::uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
    return bits_float(sign | (rounded & ~0x1fffu));
  }
  // Subnormal: a multiple of 2^-24. x · 2^24 is exact; rounding it half to even by adding
  // and taking away 2^23 (it is below 2^10 here) in float32's default rounding.
  const float scaled = bits_float(magnitude) * 16777216.f;
#if defined(__CUDA_ARCH__)
  const float whole = __fsub_rn(__fadd_rn(scaled, 8388608.f), 8388608.f);  // not contracted or reassociated
#else
  volatile float sum = scaled + 8388608.f;  // kept apart from the subtraction: not reassociated
  const float whole = sum - 8388608.f;
#endif
  return bits_float(sign | float_bits(whole * 5.9604644775390625e-08f));
}

// float8_e4m3fn (Keras's float8 layers' inputs and kernels): 4 significant bits from 2^-6
// (20 of float32's 23 fraction bits rounded away), steps of 2^-9 below, 448 the largest;
// the format has no infinity: past 464 (448 and half a step) a value is NaN, as a cast to
// it makes it (Keras clips to ±448 first).
STRATA_HOST_DEVICE inline float round_to_float8_e4m3fn(float x) {
  const std::uint32_t bits = float_bits(x);
  const std::uint32_t magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u;
  if (magnitude > 0x7f800000u) return x;                                  // NaN
  if (magnitude >= 0x43e80000u) return bits_float(0x7fc00000u);           // >= 464: NaN
  if (magnitude >= 0x3c800000u) {                                         // >= 2^-6: normal
    const std::uint32_t rounded = magnitude + 0x7ffffu + ((magnitude >> 20) & 1u);
    return bits_float(sign | (rounded & ~0xfffffu));
  }
  // Subnormal: a multiple of 2^-9, rounded half to even as round_to_float16's are.
  const float scaled = bits_float(magnitude) * 512.f;
#if defined(__CUDA_ARCH__)
  const float whole = __fsub_rn(__fadd_rn(scaled, 8388608.f), 8388608.f);
#else
  volatile float sum = scaled + 8388608.f;
  const float whole = sum - 8388608.f;
#endif
  return bits_float(sign | float_bits(whole * 0.001953125f));
}

// The 16 bits of a value rounded_to_bfloat16 / round_to_float16 already rounded (files of
// layers under those policies store them so).
inline std::uint16_t bfloat16_bits(float rounded) { return static_cast<std::uint16_t>(float_bits(rounded) >> 16); }
inline float bfloat16_value(std::uint16_t bits) { return bits_float(std::uint32_t{bits} << 16); }
inline std::uint16_t float16_bits(float rounded) {
  const std::uint32_t bits = float_bits(rounded), magnitude = bits & 0x7fffffffu;
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (magnitude == 0x7f800000u) return sign | 0x7c00u;  // infinity
  if (magnitude >= 0x38800000u) {                       // normal: rebias the exponent
    return static_cast<std::uint16_t>(sign | (((magnitude >> 23) - 112u) << 10) | ((magnitude >> 13) & 0x3ffu));
  }
  return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(bits_float(magnitude) * 16777216.f));
}

}  // namespace strata
