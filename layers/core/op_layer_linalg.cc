// keras.ops.linalg on batches of square matrices (issue #38): inv, det, cholesky, slogdet and
// logdet on the linear-algebra ops (core/ops/linalg_ops.h: LU and Cholesky kernels on each
// device, TensorFlow's gradients), and solve, solve_triangular and cholesky_inverse composed
// of them: a triangular solve is the triangle's inverse times b (TensorFlow reads only that
// triangle too), a general solve the inverse times b (TensorFlow's LU solve rounds otherwise:
// the two agree within float32's rounding times the matrix's condition number).
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/linalg_ops.h"
#include "core/ops/scan_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output square_matrices(C c, std::size_t i) {
  const Output a = c.arg(i);
  const Shape& s = a.shape();
  if (s.rank() < 2 || s.dims()[s.rank() - 1] == kUnknownDim || s.dims()[s.rank() - 1] != s.dims()[s.rank() - 2])
    throw ValueError(c.where + ": expects square matrices (..., n, n) of known size, got " + s.to_string());
  return a;
}

// x where the column is below the row (lower: at or below the diagonal), 0 elsewhere; from
// the positions' running counts, of x's shape.
Output triangle_of(Output x, bool lower) {
  const Output ones = ops::ones_like(x);
  const Output row = ops::cumsum(ones, -2), column = ops::cumsum(ones, -1);
  const Output kept = lower ? ops::less_equal(column, row) : ops::greater_equal(column, row);
  return ops::where(kept, x, ops::fill_like(x, 0.f));  // the other triangle unread, inf or NaN alike
}

// b of rank one less than a is one right-hand side per matrix: a column, squeezed back after.
Output times_right_side(C c, Output inverse, Output b) {
  const int ra = inverse.shape().rank(), rb = b.shape().rank();
  if (rb == ra - 1) return drop_axis(ops::matrix_product(inverse, ops::expand_dims(b, -1)), rb, c.where);
  if (rb != ra) throw ValueError(c.where + ": b " + b.shape().to_string() + " for a " + inverse.shape().to_string());
  return ops::matrix_product(inverse, b);
}

Output solve(C c) { return times_right_side(c, ops::matrix_inverse(square_matrices(c, 0)), c.arg(1)); }

Output solve_triangular(C c) {
  const Output triangle = triangle_of(square_matrices(c, 0), c.flag("lower"));
  return times_right_side(c, ops::matrix_inverse(triangle), c.arg(1));
}

// upper: a is U (A = U^T U); else L (A = L L^T). A⁻¹ from the triangle's inverse.
Output cholesky_inverse(C c) {
  const bool upper = c.flag("upper");
  const Output inverse = ops::matrix_inverse(triangle_of(square_matrices(c, 0), !upper));
  return upper ? ops::matrix_product(inverse, ops::swap_last_axes(inverse))
               : ops::matrix_product(ops::swap_last_axes(inverse), inverse);
}

Output cholesky(C c) {
  const Output l = ops::cholesky(square_matrices(c, 0));
  return c.flag("upper") ? ops::swap_last_axes(l) : l;
}

// tf.linalg.logdet of a positive definite matrix: 2 Σ log diag(cholesky(a)).
Output logdet(C c) {
  const Output l = ops::cholesky(square_matrices(c, 0));
  const Output ones = ops::ones_like(l);
  const Output on_diagonal = ops::equal(ops::cumsum(ones, -2), ops::cumsum(ones, -1));
  const Output diagonal = ops::reduce_sum(ops::mul(on_diagonal, l), {l.shape().rank() - 1}, false);
  return ops::mul(ops::reduce_sum(ops::log(diagonal), {diagonal.shape().rank() - 1}, false), 2.0f);
}

}  // namespace

// (sign, log |det|) of the determinant, as tf.linalg.slogdet (for determinants float32 holds).
std::vector<Output> slogdet(C c) {
  const Output det = ops::matrix_determinant(square_matrices(c, 0));
  return {ops::sign(det), ops::log(ops::abs(det))};
}

const std::map<std::string, OpFn>& linalg_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Inv", [](C c) { return ops::matrix_inverse(square_matrices(c, 0)); }},
      {"Det", [](C c) { return ops::matrix_determinant(square_matrices(c, 0)); }},
      {"Solve", solve},
      {"SolveTriangular", solve_triangular},
      {"Cholesky", cholesky},
      {"CholeskyInverse", cholesky_inverse},
      {"Logdet", logdet},
  };
  return t;
}

}  // namespace strata::layers::op_detail
