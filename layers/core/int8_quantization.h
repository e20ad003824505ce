// Keras's int8 quantized layers' arithmetic (QuantizedDTypePolicy "int8"; docs/precision.md),
// shared by Dense, EinsumDense and Embedding. The kernel is int8 in files and held here as
// float32 integers in [-127, 127] (exact), until the engine has int8 tensors.
#pragma once

#include "core/graph.h"

namespace strata::layers {

// Keras's AbsMaxQuantizer over the last axis, as its int8 Dense and EinsumDense quantize
// their inputs on every call: scale = 127 / (max |x| + 1e-7) per row (keepdims), values =
// clip(round_half_even(x * scale), -127, 127), all in float32 as Keras computes them.
struct Int8Rows {
  Output values;  // integers in [-127, 127], float32
  Output scale;   // x's shape with the last axis 1
};
Int8Rows quantize_rows_int8(Output x);

// Keras multiplies the int8 values in int32; Strata multiplies them as float32, which is
// exact while every partial sum stays below 2^24: with |values|, |kernel| <= 127, a
// contraction of at most this many terms (2^24 / 127^2). Longer ones round where Keras's
// int32 sum does not (docs/precision.md says so).
inline constexpr std::int64_t kInt8ExactContraction = 1040;

}  // namespace strata::layers
