#include "core/ops/matrix_decompositions.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/linalg_ops.h"
#include "core/ops/register.h"
#include "core/ops/scan_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// A float32 batch of matrices (..., m, n), m and n known unless `unknown_sides` (the SVD's:
// lstsq's rows are the batch axis; the sizes are known when it runs).
const Shape& expect_decomposed_matrices(const InferContext& ctx, bool unknown_sides = false) {
  expect_inputs(ctx, 1);
  expect_float_input(ctx, 0);
  const Shape& a = ctx.inputs[0].shape;
  if (a.rank() < 2)
    throw ShapeError(ctx.op + ": expects matrices (..., m, n), got " + a.to_string());
  if (!unknown_sides && (a.dims()[a.rank() - 2] == kUnknownDim || a.dims()[a.rank() - 1] == kUnknownDim))
    throw ShapeError(ctx.op + ": expects matrices of known size (..., m, n), got " + a.to_string());
  if (a.dims()[a.rank() - 2] == 0 || a.dims()[a.rank() - 1] == 0)
    throw ShapeError(ctx.op + ": expects matrices of one row and column or more, got " + a.to_string());
  return a;
}

// min(m, n), unknown when either is.
std::int64_t smaller_side(std::int64_t m, std::int64_t n) {
  return m == kUnknownDim || n == kUnknownDim ? kUnknownDim : std::min(m, n);
}

// a's batch axes followed by `last`.
Shape decomposition_shape(const Shape& a, std::vector<std::int64_t> last) {
  std::vector<std::int64_t> dims(a.dims().begin(), a.dims().end() - 2);
  dims.insert(dims.end(), last.begin(), last.end());
  return Shape(dims);
}

std::int64_t matrix_rows(const Shape& a) { return a.dims()[a.rank() - 2]; }
std::int64_t matrix_cols(const Shape& a) { return a.dims()[a.rank() - 1]; }

// x's columns [from, to) (its last axis).
Output column_range(Output x, std::int64_t from, std::int64_t to) {
  const int rank = x.shape().rank();
  std::vector<std::int64_t> before(static_cast<std::size_t>(rank), 0), after(before);
  before.back() = from;
  after.back() = matrix_cols(x.shape()) - to;
  return from == 0 && after.back() == 0 ? x : crop(x, before, after);
}

Output adjoint_of(Output x) { return swap_last_axes(x); }
Output product_of(Output a, Output b) { return matrix_product(a, b); }

// 1 where the row equals the column (diagonal) or is at or above it (lower triangle, the
// diagonal included), 0 elsewhere; x's shape, from the positions' running counts.
Output diagonal_ones(Output x) {
  const Output ones = ones_like(x);
  return equal(cumsum(ones, -2), cumsum(ones, -1));
}
Output lower_ones(Output x) {
  const Output ones = ones_like(x);
  return less_equal(cumsum(ones, -1), cumsum(ones, -2));
}

// diag(s) (..., k, k) of s (..., k), as tf.linalg.diag.
Output diagonal_matrix(Output s) {
  const Output square = mul(expand_dims(s, -1), expand_dims(ones_like(s), -2));
  return mul(diagonal_ones(square), expand_dims(s, -2));
}

// TensorFlow's _SafeReciprocal: x / (x² + 1e-20), 0 at 0.
Output safe_reciprocal(Output x) { return div(x, add(square(x), 1e-20f)); }

// f(i, j) = 1 / (d_j − d_i) off the diagonal, 0 on it (its safe reciprocal gives 0 there).
Output reciprocal_gaps(Output d) { return safe_reciprocal(sub(expand_dims(d, -2), expand_dims(d, -1))); }

// TensorFlow's _QrGradSquareAndDeepMatrices (m ≥ n: r square). x r^-T is its triangular solve.
Output qr_grad_square_or_deep(Output q, Output r, Output dq, Output dr) {
  const Output r_inverse_t = adjoint_of(matrix_inverse(r));
  const Output qdq = product_of(adjoint_of(q), dq);
  const Output rdr = product_of(r, adjoint_of(dr));
  const Output both = add(sub(qdq, adjoint_of(qdq)), sub(rdr, adjoint_of(rdr)));
  const Output tril = mul(lower_ones(both), both);
  const Output grad_a = product_of(q, add(dr, product_of(tril, r_inverse_t)));
  const Output grad_b = product_of(sub(dq, product_of(q, qdq)), r_inverse_t);
  return add(grad_a, grad_b);
}

std::vector<Output> qr_gradient(const Node& n, const std::vector<Output>& g) {
  const Output a = n.inputs[0];
  const Output q{a.graph, n.id, 0}, r{a.graph, n.id, 1};
  const std::int64_t m = matrix_rows(a.shape()), cols = matrix_cols(a.shape());
  if (n.attrs.get_or<bool>("full_matrices", false) && m > cols)
    throw ValueError("qr: no gradient with full_matrices and more rows than columns (" + a.shape().to_string() +
                     "), as TensorFlow's QrGrad");
  if (m >= cols) return {qr_grad_square_or_deep(q, r, g[0], g[1])};
  // Wide: a = [x | y], r = [u | v]; x's gradient as a square matrix's, y's q dv.
  const Output y = column_range(a, m, cols), u = column_range(r, 0, m);
  const Output du = column_range(g[1], 0, m), dv = column_range(g[1], m, cols);
  const Output dx = qr_grad_square_or_deep(q, u, add(g[0], product_of(y, adjoint_of(dv))), du);
  return {concat({dx, product_of(q, dv)}, -1)};
}

// TensorFlow's _SvdGrad with compute_uv, in its names: for m > n it differentiates a^T
// (u and v exchanged) and transposes at the end.
std::vector<Output> svd_gradient(const Node& node, const std::vector<Output>& g) {
  const Output a = node.inputs[0];
  const bool full = node.attrs.get_or<bool>("full_matrices", false);
  std::int64_t m = matrix_rows(a.shape()), n = matrix_cols(a.shape());
  if (m == kUnknownDim || n == kUnknownDim)
    throw ValueError("svd: no gradient where the matrices' rows or columns are unknown when the graph is built (" +
                     a.shape().to_string() + "), as TensorFlow's SvdGrad");
  const Output s{a.graph, node.id, 0};
  Output u{a.graph, node.id, 1}, v{a.graph, node.id, 2};
  Output grad_u = g[1], grad_v = g[2];
  const bool adjoint = m > n;
  if (adjoint) {
    std::swap(m, n);
    std::swap(u, v);
    std::swap(grad_u, grad_v);
  }
  if (full && std::abs(m - n) > 1)
    throw ValueError("svd: no gradient with full_matrices where the rows and columns differ by more than one (" +
                     a.shape().to_string() + "), as TensorFlow's SvdGrad");
  const Output s_mat = diagonal_matrix(s);
  const Output f = reciprocal_gaps(square(s));
  const Output v1 = column_range(v, 0, m), grad_v1 = column_range(grad_v, 0, m);
  const Output f_u = mul(f, product_of(adjoint_of(u), grad_u)), f_v = mul(f, product_of(adjoint_of(v1), grad_v1));
  const Output inner =
      add(add(diagonal_matrix(g[0]), product_of(add(f_u, adjoint_of(f_u)), s_mat)),
          product_of(s_mat, add(f_v, adjoint_of(f_v))));
  Output grad = product_of(u, product_of(inner, adjoint_of(v1)));
  if (m != n) {
    const Output gv1t = adjoint_of(grad_v1);
    Output term2 = sub(gv1t, product_of(product_of(gv1t, v1), adjoint_of(v1)));
    if (full) {
      const Output v2 = column_range(v, m, n), grad_v2 = column_range(grad_v, m, n);
      term2 = sub(term2, product_of(product_of(adjoint_of(v1), grad_v2), adjoint_of(v2)));
    }
    grad = add(grad, product_of(product_of(u, diagonal_matrix(safe_reciprocal(s))), term2));
  }
  return {adjoint ? adjoint_of(grad) : grad};
}

// TensorFlow's _SelfAdjointEigV2Grad: v (diag(ge) + f ∘ v^T gv) v^T, then onto the lower
// triangle the op reads: (g + g^T) there, its diagonal halved.
std::vector<Output> eigh_gradient(const Node& n, const std::vector<Output>& g) {
  const Output e{n.inputs[0].graph, n.id, 0}, v{n.inputs[0].graph, n.id, 1};
  const Output inner = add(diagonal_matrix(g[0]), mul(reciprocal_gaps(e), product_of(adjoint_of(v), g[1])));
  const Output grad = product_of(v, product_of(inner, adjoint_of(v)));
  const Output sym = add(grad, adjoint_of(grad));
  const Output lower = mul(lower_ones(sym), sym);
  return {sub(lower, mul(mul(diagonal_ones(sym), sym), 0.5f))};
}

}  // namespace

MatrixShape matrix_shape(const Shape& a) {
  const std::int64_t m = matrix_rows(a), n = matrix_cols(a);
  return {m * n == 0 ? 0 : a.num_elements() / (m * n), m, n};
}

void register_matrix_decomposition_ops(OpRegistry& r) {
  r.add({.name = "qr",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_decomposed_matrices(ctx);
           const std::int64_t m = matrix_rows(a), n = matrix_cols(a);
           const std::int64_t k = ctx.attrs.get_or<bool>("full_matrices", false) ? m : std::min(m, n);
           return std::vector<TensorSpec>{{decomposition_shape(a, {m, k}), DType::float32},
                                          {decomposition_shape(a, {k, n}), DType::float32}};
         },
         .gradient = qr_gradient});
  r.add({.name = "svd",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_decomposed_matrices(ctx, true);
           const std::int64_t m = matrix_rows(a), n = matrix_cols(a), k = smaller_side(m, n);
           const bool full = ctx.attrs.get_or<bool>("full_matrices", false);
           return std::vector<TensorSpec>{{decomposition_shape(a, {k}), DType::float32},
                                          {decomposition_shape(a, {m, full ? m : k}), DType::float32},
                                          {decomposition_shape(a, {n, full ? n : k}), DType::float32}};
         },
         .gradient = svd_gradient});
  r.add({.name = "singular_values",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_decomposed_matrices(ctx, true);
           return std::vector<TensorSpec>{{decomposition_shape(a, {smaller_side(matrix_rows(a), matrix_cols(a))}),
                                           DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const std::vector<Output> usv = svd(n.inputs[0], false);
           return std::vector<Output>{product_of(usv[1], product_of(diagonal_matrix(g[0]), adjoint_of(usv[2])))};
         }});
  r.add({.name = "self_adjoint_eig",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_decomposed_matrices(ctx);
           if (matrix_rows(a) != matrix_cols(a))
             throw ShapeError(ctx.op + ": expects square matrices (..., n, n), got " + a.to_string());
           return std::vector<TensorSpec>{{decomposition_shape(a, {matrix_cols(a)}), DType::float32},
                                          {a, DType::float32}};
         },
         .gradient = eigh_gradient});
  r.add({.name = "eig",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_decomposed_matrices(ctx);
           if (matrix_rows(a) != matrix_cols(a))
             throw ShapeError(ctx.op + ": expects square matrices (..., n, n), got " + a.to_string());
           std::vector<std::int64_t> vectors = a.dims();
           vectors.push_back(2);
           return std::vector<TensorSpec>{{decomposition_shape(a, {matrix_cols(a), 2}), DType::float32},
                                          {Shape(vectors), DType::float32}};
         },
         .gradient = [](const Node&, const std::vector<Output>&) -> std::vector<Output> {
           throw NotImplementedError("eig: no gradient in Strata (TensorFlow's EigGrad works in complex arithmetic, "
                                     "which Strata does not have)");
         }});
  r.add({.name = "lu",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_decomposed_matrices(ctx);
           if (matrix_rows(a) != matrix_cols(a))
             throw ShapeError(ctx.op + ": expects square matrices (..., n, n), got " + a.to_string());
           return std::vector<TensorSpec>{{a, DType::float32},
                                          {decomposition_shape(a, {matrix_cols(a)}), DType::int32}};
         },
         .gradient = [](const Node&, const std::vector<Output>&) -> std::vector<Output> {
           throw NotImplementedError("lu: no gradient (TensorFlow registers none for Lu)");
         }});
}

std::vector<Output> qr(Output a, bool full_matrices) {
  return a.graph->add_node("qr", {a}, Attrs{{"full_matrices", full_matrices}});
}
std::vector<Output> svd(Output a, bool full_matrices) {
  return a.graph->add_node("svd", {a}, Attrs{{"full_matrices", full_matrices}});
}
Output singular_values(Output a) { return a.graph->add("singular_values", {a}); }
std::vector<Output> self_adjoint_eig(Output a) { return a.graph->add_node("self_adjoint_eig", {a}); }
std::vector<Output> eig(Output a) { return a.graph->add_node("eig", {a}); }
std::vector<Output> lu(Output a) { return a.graph->add_node("lu", {a}); }

}  // namespace strata::ops
