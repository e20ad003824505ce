// batch_matmul: one matrix product per leading index, as keras.ops.matmul does for
// tensors of rank 3 and more: (..., m, k) · (..., k, n) -> (..., m, n). Attention's
// query-key scores and weighted values are such products, one per sample (and head).
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

// The products a batch_matmul node computes, read off its operands' shapes and its
// transposes: `batch` products of op(A) (m×k) and op(B) (k×n), A stored a_rows×a_cols
// and B b_rows×b_cols, each row-major. Its CPU and CUDA kernels both start here.
struct BatchMatmulGeometry {
  std::int64_t batch, m, n, k;
  std::int64_t a_rows, a_cols, b_rows, b_cols;
};
BatchMatmulGeometry batch_matmul_geometry(const Node& node, const Shape& a, const Shape& b);

// a and b have the same rank (>= 2) and the same leading dims; transpose_a / transpose_b
// swap the last two axes of a / b before multiplying.
Output batch_matmul(Output a, Output b, bool transpose_a = false, bool transpose_b = false);

}  // namespace strata::ops
