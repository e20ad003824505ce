// Matrix decompositions on batches of matrices: a tensor (..., m, n) is a batch of m×n
// row-major matrices over its leading axes, as tf.linalg takes them (keras.ops.linalg's qr,
// svd, eigh, eig and lu_factor, and the operations OpLayer composes of them: lstsq, norm's
// orders of the singular values). The CPU kernels (core/cpu/kernels/matrix_decompositions.cc,
// eig.cc) run the Eigen decompositions TensorFlow's CPU kernels run (HouseholderQR, BDCSVD,
// SelfAdjointEigenSolver, EigenSolver, PartialPivLU), so that the vectors' signs and phases,
// which no definition fixes, are TensorFlow's. No CUDA kernels: compiling one of these ops
// for a CUDA placement throws naming it (a thread-per-matrix Jacobi would give other signs
// than Eigen's). The gradients are TensorFlow's, as graph ops over batch_matmul and
// matrix_inverse; eig and lu have none (differentiating throws).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// {q, r} of each matrix by Householder reflections (Eigen's HouseholderQR, as TensorFlow's
// CPU kernel): with k = min(m, n), q (..., m, k) and r (..., k, n), or with full_matrices
// q (..., m, m) and r (..., m, n). Gradient TensorFlow's (QrGrad); with full_matrices and
// m > n TensorFlow has none, and differentiating throws.
std::vector<Output> qr(Output a, bool full_matrices);

// {s, u, v} of each matrix: singular values s (..., k) in descending order, a = u diag(s) v^T
// with u (..., m, k) and v (..., n, k), or with full_matrices u (..., m, m), v (..., n, n)
// (Eigen's BDCSVD, as TensorFlow's CPU kernel; v, not v^T, as tf.linalg.svd). Gradient
// TensorFlow's (SvdGrad: infinite where singular values repeat); with full_matrices and
// |m − n| > 1 TensorFlow has none, and differentiating throws. m and n may be unknown until
// the op runs (lstsq's rows are the batch axis); differentiating it then throws too.
std::vector<Output> svd(Output a, bool full_matrices);
// The singular values alone (tf.linalg.svd's compute_uv=False). Gradient u diag(g) v^T.
Output singular_values(Output a);

// {e, v} of each symmetric matrix (..., n, n) from its lower triangle (the upper one unread,
// as tf.linalg.eigh): eigenvalues e (..., n) ascending, eigenvectors v's columns (Eigen's
// SelfAdjointEigenSolver, as TensorFlow's CPU kernel). Gradient TensorFlow's, onto the lower
// triangle (its diagonal halved).
std::vector<Output> self_adjoint_eig(Output a);

// {lu, p} of each square matrix (..., n, n) as tf.linalg.lu (Eigen's PartialPivLU, as
// TensorFlow's CPU kernel): lu packs L below its diagonal (L's unit diagonal not stored) and
// U on and above it, and p (..., n) int32 lists for each row of L U the row of a it came from
// (a[p[i]] = (L U)[i]). A matrix with a pivot of exactly 0 (singular) is a ValueError when
// the op runs, as TensorFlow's Lu refuses it ("not invertible"); a NaN passes, there as here.
// No gradient, as TensorFlow registers none for Lu: differentiating throws.
std::vector<Output> lu(Output a);

// {e, v} of each square matrix (..., n, n) as tf.linalg.eig (Eigen's EigenSolver, the real
// Schur form, as TensorFlow's CPU kernel for real matrices): eigenvalues e (..., n) and
// eigenvectors v's columns (..., n, n), unit length, complex even where they are real. Strata
// has no complex dtype: each complex value is its (real, imag) pair along a last axis of 2,
// e (..., n, 2) and v (..., n, n, 2). A matrix the solver fails on (NaN, inf) is a ValueError
// when the op runs, as TensorFlow's fails. No gradient in Strata (TensorFlow's EigGrad works
// in complex arithmetic): differentiating throws.
std::vector<Output> eig(Output a);

// The matrices a decomposition node's input holds: `count` matrices of rows×cols.
struct MatrixShape {
  std::int64_t count = 0, rows = 0, cols = 0;
};
MatrixShape matrix_shape(const Shape& a);

}  // namespace strata::ops
