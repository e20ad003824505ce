// Launchers of the linear-algebra CUDA kernels (core/cuda/linalg.cu), called by
// core/cuda/linalg_kernels.cc: `count` row-major n×n matrices, one thread per matrix walking
// it as the textbook algorithms do (the small matrices keras.ops.linalg's callers hold; a
// batched cuSOLVER path is for when a model needs large ones). Plain pointers and sizes
// only. Each enqueues on `stream` and returns at once; no matrices launch nothing. Launch
// errors are for the caller to check.
#pragma once

#include <cstdint>

struct CUstream_st;

namespace strata::cuda {

// y = a⁻¹ by Gauss-Jordan elimination with partial pivoting; work holds count·n·n floats
// (a's copy, eliminated in place).
void launch_matrix_inverse(const float* a, float* y, float* work, std::int64_t count, std::int64_t n,
                           CUstream_st* stream);
// y = det(a) by LU with partial pivoting (the product of the pivots, the sign of the row
// exchanges); work holds count·n·n floats.
void launch_matrix_determinant(const float* a, float* y, float* work, std::int64_t count, std::int64_t n,
                               CUstream_st* stream);
// y = the lower Cholesky factor of a's lower triangle (Cholesky-Banachiewicz, row by row);
// a matrix that is not positive definite gives NaN throughout.
void launch_cholesky(const float* a, float* y, std::int64_t count, std::int64_t n, CUstream_st* stream);
// {q, r} of `count` m×n matrices by Householder reflections, Eigen's HouseholderQR's (the
// CPU kernel's signs): q m×k and r k×n with k = min(m, n), or m×m and m×n with
// full_matrices; work holds count·(m·n + min(m, n)) floats.
void launch_qr(const float* a, float* q, float* r, float* work, std::int64_t count, std::int64_t m, std::int64_t n,
               bool full_matrices, CUstream_st* stream);

}  // namespace strata::cuda
