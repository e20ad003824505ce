#include "core/cpu/epilogue.h"

#include "core/cpu/vector_math.h"
#include "core/precision_rounding.h"

namespace strata::cpu {

void apply_silu(float* values, std::int64_t n) { simd::apply(values, values, n, simd::silu); }

void apply_rounding(float* values, std::int64_t n, Rounding rounding) {
  switch (rounding) {
    case Rounding::kBfloat16:  // branch-free: the loop vectorizes
      for (std::int64_t i = 0; i < n; ++i) values[i] = round_to_bfloat16(values[i]);
      return;
    case Rounding::kFloat16:
      for (std::int64_t i = 0; i < n; ++i) values[i] = round_to_float16(values[i]);
      return;
    case Rounding::kNone:
      return;
  }
}

}  // namespace strata::cpu
