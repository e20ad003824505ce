// batch_matmul: shape inference, gradient, and the geometry that the devices' kernels
// (CPU and CUDA) share.
#include "core/ops/batch_matmul.h"

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::string describe_batched(const Shape& a, const Shape& b, bool ta, bool tb) {
  return "batch_matmul: shapes " + a.to_string() + (ta ? " (last two axes swapped)" : "") + " and " +
         b.to_string() + (tb ? " (last two axes swapped)" : "") + " cannot be multiplied";
}

bool agree(std::int64_t x, std::int64_t y) { return x == kUnknownDim || y == kUnknownDim || x == y; }

std::vector<TensorSpec> infer_batch_matmul(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  expect_float_input(ctx, 0, "a");
  expect_float_input(ctx, 1, "b");
  const Shape& a = ctx.inputs[0].shape;
  const Shape& b = ctx.inputs[1].shape;
  const bool ta = ctx.attrs.get<bool>("transpose_a"), tb = ctx.attrs.get<bool>("transpose_b");
  if (a.rank() < 2 || a.rank() != b.rank()) {
    throw ShapeError(describe_batched(a, b, ta, tb) + " (both need the same rank, at least 2)");
  }
  const int r = a.rank();
  std::vector<std::int64_t> dims;
  for (int i = 0; i < r - 2; ++i) {
    if (!agree(a.dims()[i], b.dims()[i])) throw ShapeError(describe_batched(a, b, ta, tb) + " (leading dims differ)");
    dims.push_back(a.dims()[i] != kUnknownDim ? a.dims()[i] : b.dims()[i]);
  }
  const std::int64_t m = a.dims()[ta ? r - 1 : r - 2], ka = a.dims()[ta ? r - 2 : r - 1];
  const std::int64_t kb = b.dims()[tb ? r - 1 : r - 2], n = b.dims()[tb ? r - 2 : r - 1];
  if (!agree(ka, kb)) throw ShapeError(describe_batched(a, b, ta, tb));
  dims.push_back(m);
  dims.push_back(n);
  return {{Shape(dims), DType::float32}};
}

}  // namespace

void register_batch_matmul_ops(OpRegistry& r) {
  r.add({.name = "batch_matmul", .infer = infer_batch_matmul,
         // The adjoints of C = op(A) · op(B), per product, as for matmul.
         .gradient = [](const Node& node, const std::vector<Output>& grads) {
           Output a = node.inputs[0], b = node.inputs[1], g = grads[0];
           const bool ta = node.attrs.get<bool>("transpose_a"), tb = node.attrs.get<bool>("transpose_b");
           if (!ta && !tb) return std::vector<Output>{batch_matmul(g, b, false, true), batch_matmul(a, g, true, false)};
           if (!ta && tb) return std::vector<Output>{batch_matmul(g, b, false, false), batch_matmul(g, a, true, false)};
           if (ta && !tb) return std::vector<Output>{batch_matmul(b, g, false, true), batch_matmul(a, g, false, false)};
           return std::vector<Output>{batch_matmul(b, g, true, true), batch_matmul(g, a, true, true)};
         }});
}

BatchMatmulGeometry batch_matmul_geometry(const Node& node, const Shape& a, const Shape& b) {
  const bool ta = node.attrs.get<bool>("transpose_a"), tb = node.attrs.get<bool>("transpose_b");
  const int r = a.rank();
  BatchMatmulGeometry g{};
  g.a_rows = a[r - 2];
  g.a_cols = a[r - 1];
  g.b_rows = b[r - 2];
  g.b_cols = b[r - 1];
  g.m = ta ? g.a_cols : g.a_rows;
  g.k = ta ? g.a_rows : g.a_cols;
  g.n = tb ? g.b_rows : g.b_cols;
  g.batch = a.product(0, r - 2);
  return g;
}

Output batch_matmul(Output a, Output b, bool transpose_a, bool transpose_b) {
  return a.graph->add("batch_matmul", {a, b}, Attrs{{"transpose_a", transpose_a}, {"transpose_b", transpose_b}});
}

}  // namespace strata::ops
