// What a product does to its output before it leaves the cache: a bias per column, a
// residual (a matrix the shape of the product, a ResNet block's shortcut) added, then an
// activation (relu, relu6, silu). The GEMM applies it to each tile of C as the last
// block of k stores the tile's registers (silu to each tile row right after:
// packed_gemm_kernel.h), the convolutions and Dense layers pass theirs in, so a layer's
// output is written once instead of once by the product and again by a separate pass of
// bias and activation (issue #37: MobileNetV2 spent a fifth of its time in its relu6 and
// bias passes, EfficientNetB0 18% in its silu pass).
#pragma once

#include <algorithm>
#include <cstdint>

namespace strata::cpu {

enum class Activation {
  kNone,
  kRelu,   // max(x, 0); NaN becomes 0, as the fused relu always did
  kRelu6,  // min(max(x, 0), 6); NaN stays NaN, as the relu6 op
  kSilu,   // x·sigmoid(x), through apply_silu: the silu op's own vector code
};

// The output rounded last, to the values of an emulated compute dtype (the result of a
// conv2d, dense or matmul whose node has output_rounding, core/graph.h; docs/precision.md):
// as the round_to_bfloat16 / round_to_float16 ops round (core/precision_rounding.h), on
// each row while it is in cache.
enum class Rounding { kNone, kBfloat16, kFloat16 };

struct Epilogue {
  const float* bias = nullptr;  // one per column of the product, or none
  Activation activation = Activation::kNone;
  const float* residual = nullptr;  // element (i, j) at residual[i·residual_ld + j], or none
  std::int64_t residual_ld = 0;
  Rounding rounding = Rounding::kNone;

  bool empty() const {
    return bias == nullptr && activation == Activation::kNone && residual == nullptr && rounding == Rounding::kNone;
  }
  // Whether the epilogue needs a pass over whole rows after the product's registers are
  // stored (silu, the rounding), rather than only work on the registers.
  bool works_on_rows() const { return activation == Activation::kSilu || rounding != Rounding::kNone; }
  // The same epilogue for the columns from `column` on, or the rows from `row` on.
  Epilogue from_column(std::int64_t column) const {
    return {bias ? bias + column : nullptr, activation, residual ? residual + column : nullptr, residual_ld, rounding};
  }
  Epilogue from_row(std::int64_t row) const {
    return {bias, activation, residual ? residual + row * residual_ld : nullptr, residual_ld, rounding};
  }
};

// silu on n floats in place, with the silu op's kernel (core/cpu/vector_math.h), so a
// fused silu gives the op's bits. Compiled for the library's target, not per
// instruction set: the GEMM's kernels call it on each tile row (epilogue.cc).
void apply_silu(float* values, std::int64_t n);
// n floats rounded in place as the rounding ops round them (nothing for kNone).
void apply_rounding(float* values, std::int64_t n, Rounding rounding);
// The row passes of an epilogue (works_on_rows) on n floats of one row, after its bias,
// residual and relu: silu, then the rounding.
inline void apply_row_passes(const Epilogue& e, float* row, std::int64_t n) {
  if (e.activation == Activation::kSilu) apply_silu(row, n);
  if (e.rounding != Rounding::kNone) apply_rounding(row, n, e.rounding);
}

// relu or relu6 of one value (not silu: apply_silu works on spans).
inline float apply_clamp(Activation activation, float v) {
  switch (activation) {
    case Activation::kRelu:
      return v > 0.f ? v : 0.f;
    case Activation::kRelu6:
      return std::min(std::max(v, 0.f), 6.f);
    case Activation::kNone:
    case Activation::kSilu:
      return v;
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
    const float* res = e.residual ? e.residual + i * e.residual_ld : nullptr;
    for (std::int64_t j = 0; j < cols; ++j) {
      float v = row[j] + (e.bias ? e.bias[j] : 0.f);
      if (res) v += res[j];
      row[j] = apply_clamp(e.activation, v);
    }
    apply_row_passes(e, row, cols);
  }
}

}  // namespace strata::cpu
