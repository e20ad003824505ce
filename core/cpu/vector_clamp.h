// The epilogue's relu and relu6 (core/cpu/epilogue.h) on a vector of the library's target
// (core/cpu/vector_math.h) or on one float, with the epilogue's NaN rules: relu makes NaN
// 0, relu6 keeps it. For the kernels that apply an epilogue in their own vector loops
// (Winograd's output transform, the direct convolution); silu goes through apply_silu.
#pragma once

#include "core/cpu/epilogue.h"
#include "core/cpu/vector_math.h"

namespace strata::cpu::simd {

inline Vec clamp(Activation a, Vec v) {
  if (a == Activation::kRelu) return select(v > 0.f, v, Vec{});
  if (a == Activation::kRelu6) {
    const Vec low = select(v < 0.f, Vec{}, v);
    return select(low > 6.f, splat(6.f), low);
  }
  return v;
}
inline float clamp(Activation a, float v) { return apply_clamp(a, v); }

}  // namespace strata::cpu::simd
