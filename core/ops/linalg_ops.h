// Linear algebra on batches of square matrices: a tensor (..., n, n) is a batch of n×n
// row-major matrices over its leading axes, as tf.linalg takes them (keras.ops.linalg's inv,
// det, solve, slogdet, cholesky and the operations OpLayer composes of these). Each device
// registers its kernels (core/cpu/kernels/linalg.cc on Eigen, core/cuda/linalg.cu); the
// gradients are graph ops over these and batch_matmul, as TensorFlow's.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

// The inverse of each matrix, by LU with partial pivoting. A singular matrix gives inf or NaN
// (TensorFlow raises at run time). Gradient −Y^T · g · Y^T.
Output matrix_inverse(Output a);
// The determinant of each matrix (...), the product of its LU factor's diagonal, the sign of
// the row exchanges. Gradient g · det · inverse(a)^T.
Output matrix_determinant(Output a);
// The lower Cholesky factor L (L L^T = a) of each matrix, from its lower triangle only (the
// upper is not read, as tf.linalg.cholesky). A matrix that is not positive definite gives a
// factor of NaN (TensorFlow's does too; Keras then raises). Gradient TensorFlow's:
// sym(L^−T Φ(L^T g) L^−1), Φ the lower triangle with its diagonal halved, sym(x) = (x + x^T)/2.
Output cholesky(Output a);

// The matrices a linalg node's input holds: `count` matrices of n×n.
struct MatrixBatch {
  std::int64_t count = 1, n = 0;
};
MatrixBatch matrix_batch(const Shape& a);

// x with its last two axes swapped.
Output swap_last_axes(Output x);
// a · b over the last two axes, with the leading ones matched (rank 2: one product).
Output matrix_product(Output a, Output b);

}  // namespace strata::ops
