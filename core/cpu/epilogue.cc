#include "core/cpu/epilogue.h"

#include "core/cpu/vector_math.h"

namespace strata::cpu {

void apply_silu(float* values, std::int64_t n) { simd::apply(values, values, n, simd::silu); }

}  // namespace strata::cpu
