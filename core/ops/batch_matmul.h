// batch_matmul: one matrix product per leading index, as keras.ops.matmul does for
// tensors of rank 3 and more: (..., m, k) · (..., k, n) -> (..., m, n). Attention's
// query-key scores and weighted values are such products, one per sample (and head).
#pragma once

#include "core/graph.h"

namespace strata::ops {

// a and b have the same rank (>= 2) and the same leading dims; transpose_a / transpose_b
// swap the last two axes of a / b before multiplying.
Output batch_matmul(Output a, Output b, bool transpose_a = false, bool transpose_b = false);

}  // namespace strata::ops
