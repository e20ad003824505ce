// matmul: the CPU backend's GEMM (core/cpu/gemm.h) on row-major matrices.
#include "core/cpu/gemm.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// (rows, cols) of a tensor read as a matrix: product of leading dims, last dim.
std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s) {
  if (s.rank() < 1) return {1, 1};
  return {s.product(0, s.rank() - 1), s.dims()[s.rank() - 1]};
}

std::string describe(const Shape& a, const Shape& b, bool ta, bool tb) {
  return "matmul: shapes " + a.to_string() + (ta ? "ᵀ" : "") + " and " + b.to_string() + (tb ? "ᵀ" : "") +
         " cannot be multiplied";
}

std::vector<TensorSpec> infer_matmul(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  const Shape& a = ctx.inputs[0].shape;
  const Shape& b = ctx.inputs[1].shape;
  bool ta = ctx.attrs.get<bool>("transpose_a"), tb = ctx.attrs.get<bool>("transpose_b");
  if (ctx.inputs[0].dtype != DType::float32 || ctx.inputs[1].dtype != DType::float32) {
    throw ValueError("matmul: expects float32 inputs");
  }
  if (a.rank() < 2 || b.rank() < 2) throw ShapeError(describe(a, b, ta, tb) + " (both need rank >= 2)");
  auto [ar, ac] = as_matrix(a);
  auto [br, bc] = as_matrix(b);
  std::int64_t inner_a = ta ? ar : ac, inner_b = tb ? bc : br;
  if (inner_a >= 0 && inner_b >= 0 && inner_a != inner_b) throw ShapeError(describe(a, b, ta, tb));
  std::int64_t n = tb ? br : bc;
  if (ta) return {{Shape{ac, n}, DType::float32}};
  std::vector<std::int64_t> dims(a.dims().begin(), a.dims().end() - 1);
  dims.push_back(n);
  return {{Shape(std::move(dims)), DType::float32}};
}

void matmul_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  Tensor& out = ctx.output(0);
  auto [ar, ac] = as_matrix(a.shape());
  auto [br, bc] = as_matrix(b.shape());
  bool ta = ctx.node.attrs.get<bool>("transpose_a"), tb = ctx.node.attrs.get<bool>("transpose_b");
  const std::int64_t m = ta ? ac : ar, k = ta ? ar : ac, n = tb ? br : bc;
  cpu::gemm(ta, tb, m, n, k, a.data<float>(), ac, b.data<float>(), bc, out.data<float>(), n);
}

// Reshapes a gradient computed in matrix form back to the input's shape when the input
// was N-D (its leading dims were flattened).
Output to_input_shape(Output grad, Output input) {
  return grad.shape() == input.shape() ? grad : reshape_like(grad, input);
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
  r.add({.name = "matmul", .infer = infer_matmul, .cpu_kernel = matmul_kernel,
         .gradient = [](const Node& n, const std::vector<Output>& grads) {
           Output a = n.inputs[0], b = n.inputs[1], g = grads[0];
           bool ta = n.attrs.get<bool>("transpose_a"), tb = n.attrs.get<bool>("transpose_b");
           Output da, db;
           if (!ta && !tb) {
             da = matmul(g, b, false, true);
             db = matmul(a, g, true, false);
           } else if (!ta && tb) {
             da = matmul(g, b, false, false);
             db = matmul(g, a, true, false);
           } else if (ta && !tb) {
             da = matmul(b, g, false, true);
             db = matmul(a, g, false, false);
           } else {
             da = matmul(b, g, true, true);
             db = matmul(g, a, true, true);
           }
           return std::vector<Output>{to_input_shape(da, a), to_input_shape(db, b)};
         }});
}

Output matmul(Output a, Output b, bool transpose_a, bool transpose_b) {
  return a.graph->add("matmul", {a, b}, Attrs{{"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
}

}  // namespace strata::ops
