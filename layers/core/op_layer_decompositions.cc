// keras.ops.linalg's decompositions (issue #38) on the matrix decomposition ops
// (core/ops/matrix_decompositions.h: Eigen's HouseholderQR, BDCSVD, SelfAdjointEigenSolver,
// EigenSolver and PartialPivLU on the CPU, as TensorFlow's kernels; TensorFlow's gradients
// where it has them), as Keras's TensorFlow backend calls them: qr's (q, r) in mode reduced or
// complete, svd's (u, s, v^T) or s alone, eigh's (eigenvalues, eigenvectors), eig's (complex
// eigenvalues and eigenvectors, as (real, imag) pairs), lu_factor's (lu, pivots); and of the
// singular values, as tf.linalg computes them, pinv (v diag(1/s) u^T, values at or below
// rcond × the largest dropped) and matrix_rank (int32 count of the values above tol), and
// lstsq's least-squares solution. Every operation but lstsq and lu_factor (one matrix, its
// rows the batch axis) takes matrices (..., m, n) of known size after the batch axis.
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/linalg_ops.h"
#include "core/ops/matrix_decompositions.h"
#include "core/ops/scan_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// float32's machine epsilon, np.finfo("float32").eps, which tf.linalg's tolerances scale.
constexpr float kFloat32Epsilon = 1.1920929e-07f;

Output decomposed_matrices(C c) {
  const Output a = c.arg(0);
  const Shape& s = a.shape();
  if (s.rank() < 2 || s.dims()[s.rank() - 1] == kUnknownDim || s.dims()[s.rank() - 2] == kUnknownDim)
    throw ValueError(c.where + ": expects matrices (..., m, n) of known size, got " + s.to_string());
  return a;
}

// max(m, n) of the matrices (..., m, n).
float larger_side(const Output& a) {
  const auto& d = a.shape().dims();
  return static_cast<float>(std::max(d[d.size() - 2], d[d.size() - 1]));
}

std::vector<Output> qr(C c) {
  const std::string mode = c.has("mode") ? c.text("mode") : "reduced";
  if (mode != "reduced" && mode != "complete") refuse(c, "mode", "'reduced' and 'complete' are the modes");
  return ops::qr(decomposed_matrices(c), mode == "complete");
}

// Keras's svd: (u, s, v^T), full_matrices by default; or s alone.
std::vector<Output> svd(C c) {
  const Output a = decomposed_matrices(c);
  if (c.has("compute_uv") && !c.flag("compute_uv")) return {ops::singular_values(a)};
  const bool full = !c.has("full_matrices") || c.flag("full_matrices");
  const std::vector<Output> suv = ops::svd(a, full);
  return {suv[1], suv[0], ops::swap_last_axes(suv[2])};
}

// The call's matrices, square and of known size.
Output square_matrices(C c) {
  const Output a = decomposed_matrices(c);
  const auto& d = a.shape().dims();
  if (d[d.size() - 1] != d[d.size() - 2])
    throw ValueError(c.where + ": expects square matrices (..., n, n), got " + a.shape().to_string());
  return a;
}

std::vector<Output> eigh(C c) { return ops::self_adjoint_eig(square_matrices(c)); }

// Keras's eig on the TensorFlow backend: tf.linalg.eig's complex64 eigenvalues and
// eigenvectors, held as (real, imag) pairs along a last axis (Strata has no complex dtype),
// which only view_as_real may read, as Polar's (io/model_config.cc refuses any other reader).
std::vector<Output> eig(C c) { return ops::eig(square_matrices(c)); }

// Keras's lu_factor on the TensorFlow backend: tf.linalg.lu's packed factors, and
// invert_permutation of its permutation (int32): pivots[r] is the row of L U that a's row r
// went to. TensorFlow's invert_permutation takes one permutation, so Keras computes it for one
// matrix, (n, n): in a functional model the rows are the batch axis, of a fixed size. No
// gradient (TensorFlow has none for Lu).
std::vector<Output> lu_factor(C c) {
  const Output a = square_matrices(c);
  if (rank_of(a) != 2)
    throw ValueError(c.where + ": expects one matrix (n, n), as Keras's TensorFlow backend (its invert_permutation "
                     "takes one permutation), got " + a.shape().to_string());
  const std::vector<Output> lu = ops::lu(a);
  return {lu[0], ops::argsort(ops::cast(lu[1], DType::float32), 0)};
}

// tf.linalg.pinv: singular values at or below rcond × the largest become inf (1/s = 0, and no
// NaN gradient); rcond None is 10 · max(m, n) · eps.
Output pinv(C c) {
  const Output a = decomposed_matrices(c);
  const float rcond = c.has("rcond") ? static_cast<float>(c.number("rcond")) : 10.f * larger_side(a) * kFloat32Epsilon;
  const std::vector<Output> suv = ops::svd(a, false);
  const Output s = suv[0];
  const Output cutoff = ops::mul(ops::reduce_max(s, {rank_of(s) - 1}, true), rcond);
  const Output kept = ops::where(ops::greater(s, cutoff), s, ops::fill_like(s, kInf));
  return ops::matrix_product(ops::div(suv[2], ops::expand_dims(kept, -2)), ops::swap_last_axes(suv[1]));
}

// tf.linalg.matrix_rank: the singular values above tol; tol None is eps · max(m, n) × the
// largest.
Output matrix_rank(C c) {
  const Output a = decomposed_matrices(c);
  const Output s = ops::singular_values(a);
  const int last = rank_of(s) - 1;
  const Output tol = c.has("tol") ? scalar(c, static_cast<float>(c.number("tol")))
                                  : ops::mul(ops::reduce_max(s, {last}, true), kFloat32Epsilon * larger_side(a));
  return ops::cast(ops::reduce_sum(ops::greater(s, tol), {last}, false), DType::int32);
}

// Keras's lstsq on the TensorFlow backend: a (m, n) and b (m) or (m, k) of rank 2 and 1 or
// 2 exactly, so in a functional model m is the batch axis (known when the model runs, not when
// it is built) and the result (n) or (n, k) has none. x = v diag(1/s) u^T b over the thin
// SVD, singular values below rcond × the largest dropped; rcond None is eps · max(m, n) (m the
// batch's size, so computed in the graph), a negative rcond eps. No gradient: TensorFlow's
// SvdGrad needs m when the graph is built (differentiating throws saying so).
Output least_squares(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  if (rank_of(a) != 2) throw ValueError(c.where + ": expects a of rank 2, got " + a.shape().to_string());
  if (rank_of(b) != 1 && rank_of(b) != 2)
    throw ValueError(c.where + ": expects b of rank 1 or 2, got " + b.shape().to_string());
  const std::int64_t n = a.shape()[1];
  if (n == kUnknownDim) throw ValueError(c.where + ": expects a's columns known, got " + a.shape().to_string());
  const Output rows = ops::reduce_sum(ops::ones_like(slice(a, 1, 0, 1)));
  Output rcond;
  if (!c.has("rcond")) {
    rcond = ops::mul(ops::maximum(rows, static_cast<float>(n)), kFloat32Epsilon);
  } else {
    const double given = c.number("rcond");
    rcond = scalar(c, given < 0 ? kFloat32Epsilon : static_cast<float>(given));
  }
  const std::vector<Output> suv = ops::svd(a, false);
  const Output s = suv[0];
  const Output kept = ops::greater_equal(s, ops::mul(ops::reduce_max(s, {0}, true), rcond));
  const Output safe = ops::where(kept, s, ops::ones_like(s));
  const Output s_inverse = ops::expand_dims(ops::where(kept, ops::div(1.0f, safe), ops::zeros_like(s)), -1);
  const Output columns = rank_of(b) == 1 ? ops::expand_dims(b, -1) : b;
  const Output u_t_b = ops::matmul(suv[1], columns, true, false);
  const Output x = ops::matmul(suv[2], ops::mul(s_inverse, u_t_b));
  return rank_of(b) == 1 ? drop_axis(x, 1, c.where) : x;
}

}  // namespace

const std::map<std::string, OpFn>& decomposition_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Pinv", pinv},
      {"MatrixRank", matrix_rank},
      {"Lstsq", least_squares},
  };
  return t;
}

const std::map<std::string, MultiOpFn>& decomposition_multi_output_ops() {
  static const std::map<std::string, MultiOpFn> t = {
      {"Qr", qr},
      {"SVD", svd},
      {"Eigh", eigh},
      {"LuFactor", lu_factor},
      {"Eig", eig},
  };
  return t;
}

}  // namespace strata::layers::op_detail
