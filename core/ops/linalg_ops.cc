#include "core/ops/linalg_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_matmul.h"
#include "core/ops/register.h"
#include "core/ops/scan_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// A float32 batch of square matrices (..., n, n), n known.
const Shape& expect_square_matrices(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  expect_float_input(ctx, 0);
  const Shape& a = ctx.inputs[0].shape;
  if (a.rank() < 2)
    throw ShapeError(ctx.op + ": expects matrices (..., n, n), got " + a.to_string());
  const std::int64_t rows = a.dims()[a.rank() - 2], cols = a.dims()[a.rank() - 1];
  if (rows == kUnknownDim || rows != cols)
    throw ShapeError(ctx.op + ": expects square matrices of known size (..., n, n), got " + a.to_string());
  return a;
}

// x (...) as (..., 1, 1): a value per matrix, broadcast over it.
Output per_matrix(Output x) { return expand_dims(expand_dims(x, -1), -1); }

// Φ(x): x's lower triangle with its diagonal halved (the mask from the positions' running
// counts, so that it is graph ops on every device).
Output lower_half_diagonal(Output x) {
  const Output ones = ones_like(x);
  const Output row = cumsum(ones, -2), column = cumsum(ones, -1);
  const Output below = mul(less(column, row), x);
  return add(below, mul(mul(equal(column, row), x), 0.5f));
}

}  // namespace

MatrixBatch matrix_batch(const Shape& a) {
  const std::int64_t n = a.dims()[a.rank() - 1];
  return {n == 0 ? 0 : a.num_elements() / (n * n), n};
}

Output swap_last_axes(Output x) {
  std::vector<std::int64_t> perm;
  const int rank = x.shape().rank();
  for (int i = 0; i < rank; ++i) perm.push_back(i);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return transpose(x, perm);
}

Output matrix_product(Output a, Output b) {
  return a.shape().rank() == 2 && b.shape().rank() == 2 ? matmul(a, b) : batch_matmul(a, b);
}

void register_linalg_ops(OpRegistry& r) {
  r.add({.name = "matrix_inverse",
         .infer = [](const InferContext& ctx) { return std::vector<TensorSpec>{{expect_square_matrices(ctx),
                                                                                DType::float32}}; },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Output y_t = swap_last_axes(Output{n.inputs[0].graph, n.id, 0});
           return std::vector<Output>{neg(matrix_product(y_t, matrix_product(g[0], y_t)))};
         }});
  r.add({.name = "matrix_determinant",
         .infer = [](const InferContext& ctx) {
           const Shape& a = expect_square_matrices(ctx);
           std::vector<std::int64_t> dims(a.dims().begin(), a.dims().end() - 2);
           return std::vector<TensorSpec>{{Shape(dims), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Output det = Output{n.inputs[0].graph, n.id, 0};
           const Output scale = per_matrix(mul(g[0], det));
           return std::vector<Output>{mul(scale, swap_last_axes(matrix_inverse(n.inputs[0])))};
         }});
  r.add({.name = "cholesky",
         .infer = [](const InferContext& ctx) { return std::vector<TensorSpec>{{expect_square_matrices(ctx),
                                                                                DType::float32}}; },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const Output l = Output{n.inputs[0].graph, n.id, 0};
           const Output l_inverse = matrix_inverse(l);
           const Output middle = lower_half_diagonal(matrix_product(swap_last_axes(l), g[0]));
           const Output grad = matrix_product(swap_last_axes(l_inverse), matrix_product(middle, l_inverse));
           return std::vector<Output>{mul(add(grad, swap_last_axes(grad)), 0.5f)};
         }});
}

Output matrix_inverse(Output a) { return a.graph->add("matrix_inverse", {a}); }
Output matrix_determinant(Output a) { return a.graph->add("matrix_determinant", {a}); }
Output cholesky(Output a) { return a.graph->add("cholesky", {a}); }

}  // namespace strata::ops
