// What a product does to its output before it leaves the cache: a bias per column, then
// a clamp (relu, relu6). The GEMM applies it to each tile row of C right after the last
// block of k (packed_gemm_kernel.h), the convolutions and Dense layers pass theirs in,
// so a layer's output is written once instead of once by the product and again by a
// separate pass of bias and activation (issue #37: MobileNetV2 spent a fifth of its time
// in its relu6 and bias passes).
#pragma once

#include <algorithm>
#include <cstdint>

namespace strata::cpu {

enum class Clamp {
  kNone,
  kRelu,   // max(x, 0); NaN becomes 0, as the fused relu always did
  kRelu6,  // min(max(x, 0), 6); NaN stays NaN, as the relu6 op
};

struct Epilogue {
  const float* bias = nullptr;  // one per column of the product, or none
  Clamp clamp = Clamp::kNone;

  bool empty() const { return bias == nullptr && clamp == Clamp::kNone; }
  // The same epilogue for the columns from `column` on.
  Epilogue from_column(std::int64_t column) const { return {bias ? bias + column : nullptr, clamp}; }
};

inline float apply_clamp(Clamp clamp, float v) {
  switch (clamp) {
    case Clamp::kNone:
      return v;
    case Clamp::kRelu:
      return v > 0.f ? v : 0.f;
    case Clamp::kRelu6:
      return std::min(std::max(v, 0.f), 6.f);
  }
  return v;
}

// The epilogue on rows [0, rows) × columns [0, cols) of c (row stride ldc), one float at
// a time: for the products that do not run the packed kernel (Eigen's, the
// matrix-vector ones).
inline void apply_epilogue(const Epilogue& e, float* c, std::int64_t ldc, std::int64_t rows, std::int64_t cols) {
  if (e.empty()) return;
  for (std::int64_t i = 0; i < rows; ++i) {
    float* row = c + i * ldc;
    for (std::int64_t j = 0; j < cols; ++j) row[j] = apply_clamp(e.clamp, row[j] + (e.bias ? e.bias[j] : 0.f));
  }
}

}  // namespace strata::cpu
