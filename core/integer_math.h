// The integer ops' arithmetic (core/ops/integer_ops.cc: bitwise and, or, xor, not, shifts,
// gcd, lcm) on int32 and int64, as TensorFlow's kernels compute it, which is what Keras 3's
// TensorFlow backend runs for keras.ops.bitwise_and ... gcd, lcm: shifts clamped to
// [0, bits − 1] (a left shift done unsigned, a right shift arithmetic), floor division and
// modulo as Python's, INT_MIN // −1 wrapping to INT_MIN (TensorFlow's safe division) where
// C++ would trap, and products and absolute values wrapping in two's complement. Plain C++
// that compiles for the host and for CUDA devices alike: the CPU kernels
// (core/cpu/kernels/integer.cc) and the CUDA ones (core/cuda/integer.cu) compute through it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/philox_rounds.h"  // STRATA_HOST_DEVICE

namespace strata::integer_math {

// The integer ops, in the order their kernels are numbered on every device.
enum class IntegerOp : int { bitwise_and, bitwise_or, bitwise_xor, left_shift, right_shift, gcd, lcm };

template <typename T>
using Unsigned = std::make_unsigned_t<T>;

// −x in two's complement: −INT_MIN is INT_MIN, as TensorFlow's negation and abs give.
template <typename T>
STRATA_HOST_DEVICE inline T wrapping_neg(T x) {
  return static_cast<T>(Unsigned<T>(0) - static_cast<Unsigned<T>>(x));
}
template <typename T>
STRATA_HOST_DEVICE inline T wrapping_abs(T x) {
  return x < 0 ? wrapping_neg(x) : x;
}
template <typename T>
STRATA_HOST_DEVICE inline T wrapping_mul(T a, T b) {
  return static_cast<T>(static_cast<Unsigned<T>>(a) * static_cast<Unsigned<T>>(b));
}

// The shift TensorFlow's left_shift_op / right_shift_op apply: y clamped to [0, bits − 1].
template <typename T>
STRATA_HOST_DEVICE inline T clamped_shift(T y) {
  constexpr T top = static_cast<T>(sizeof(T) * 8 - 1);
  return y < 0 ? T(0) : (y > top ? top : y);
}
template <typename T>
STRATA_HOST_DEVICE inline T left_shift(T x, T y) {
  return static_cast<T>(static_cast<Unsigned<T>>(x) << static_cast<Unsigned<T>>(clamped_shift(y)));
}
template <typename T>
STRATA_HOST_DEVICE inline T right_shift(T x, T y) {
  return static_cast<T>(x >> clamped_shift(y));  // arithmetic (C++20's rule; GCC's, Clang's and nvcc's before)
}

// Python's x // y and x % y (y != 0) as TensorFlow's FloorDiv and FloorMod: INT_MIN // −1 is
// INT_MIN and INT_MIN % −1 is 0 (TensorFlow computes them as −x // 1 and −x % 1).
template <typename T>
STRATA_HOST_DEVICE inline T floor_div(T x, T y) {
  if (y == T(-1)) return wrapping_neg(x);
  const T z = x / y;
  return wrapping_mul(z, y) != x && ((x < 0) != (y < 0)) ? static_cast<T>(z - 1) : z;
}
template <typename T>
STRATA_HOST_DEVICE inline T floor_mod(T x, T y) {
  if (y == T(-1)) return T(0);
  const T r = x % y;
  return r != 0 && ((y < 0) != (r < 0)) ? static_cast<T>(r + y) : r;
}

// Keras's gcd (its TensorFlow backend): Euclid's steps on |x1|, |x2| with floor modulo until
// the second is 0, element by element. Non-negative but where |INT_MIN| wraps: gcd(INT_MIN,
// INT_MIN) is INT_MIN and gcd(1, INT_MIN) is −1, as Keras's.
template <typename T>
STRATA_HOST_DEVICE inline T gcd(T x1, T x2) {
  T a = wrapping_abs(x1), b = wrapping_abs(x2);
  while (b != 0) {
    const T r = floor_mod(a, b);
    a = b;
    b = r;
  }
  return a;
}

// Keras's lcm: |x1| · (|x2| // gcd), products wrapping; 0 where the gcd is 0 (both 0).
template <typename T>
STRATA_HOST_DEVICE inline T lcm(T x1, T x2) {
  const T a = wrapping_abs(x1), b = wrapping_abs(x2);
  const T divisor = gcd(a, b);
  return divisor == 0 ? T(0) : wrapping_mul(a, floor_div(b, divisor));
}

template <typename T>
STRATA_HOST_DEVICE inline T apply(IntegerOp op, T a, T b) {
  switch (op) {
    case IntegerOp::bitwise_and: return static_cast<T>(a & b);
    case IntegerOp::bitwise_or: return static_cast<T>(a | b);
    case IntegerOp::bitwise_xor: return static_cast<T>(a ^ b);
    case IntegerOp::left_shift: return left_shift(a, b);
    case IntegerOp::right_shift: return right_shift(a, b);
    case IntegerOp::gcd: return gcd(a, b);
    case IntegerOp::lcm: return lcm(a, b);
  }
  return T(0);
}

}  // namespace strata::integer_math
