// keras.ops.diag and diagflat (issue #38), whose matrix axes in a functional model include
// the batch axis, whose size is the run's: a vector to the square matrix with it on a
// diagonal, and a matrix's diagonal, their sizes inferred from the fed shapes. The CPU runs
// them (core/cpu/kernels/diag.cc); no CUDA kernel is written, so a Program placed on a GPU
// refuses them by name.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

// tf.linalg.diag(v, k): v (n,) on diagonal k of zeros (n + |k|, n + |k|) (above the main one
// for k > 0). Its gradient is diag_part of the incoming one.
Output diag_matrix(Output v, std::int64_t k);

// The k-th diagonal of m (rows, cols): (max(0, min(rows + min(k, 0), cols - max(k, 0))),),
// empty where k leaves no element. Its gradient is m's shape of zeros with it on that diagonal.
Output diag_part(Output m, std::int64_t k);

// Zeros shaped like m with v on its k-th diagonal: diag_part's adjoint. Not differentiable.
Output diag_part_adjoint(Output v, Output m, std::int64_t k);

}  // namespace strata::ops
