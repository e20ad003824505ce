// diag_matrix, diag_part and diag_part_adjoint (core/ops/diag_ops.h): shapes and gradients.
// The CPU registers their kernels (cpu/kernels/diag.cc).
#include "core/ops/diag_ops.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::int64_t diagonal_length(std::int64_t rows, std::int64_t cols, std::int64_t k) {
  if (rows == kUnknownDim || cols == kUnknownDim) return kUnknownDim;
  return std::max<std::int64_t>(0, std::min(rows + std::min<std::int64_t>(k, 0), cols - std::max<std::int64_t>(k, 0)));
}

void expect_rank(const InferContext& ctx, std::size_t i, int rank, const char* what) {
  if (ctx.inputs[i].shape.rank() != rank)
    throw ShapeError(ctx.op + ": takes " + what + ", got " + ctx.inputs[i].shape.to_string());
}

}  // namespace

void register_diag_ops(OpRegistry& r) {
  r.add({.name = "diag_matrix",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_rank(ctx, 0, 1, "a vector");
           const std::int64_t n = ctx.inputs[0].shape.dims()[0];
           const std::int64_t side = n == kUnknownDim ? kUnknownDim : n + std::abs(ctx.attrs.get<std::int64_t>("k"));
           return std::vector<TensorSpec>{{Shape({side, side}), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{diag_part(g[0], n.attrs.get<std::int64_t>("k"))};
         }});
  r.add({.name = "diag_part",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_rank(ctx, 0, 2, "a matrix");
           const auto& d = ctx.inputs[0].shape.dims();
           return std::vector<TensorSpec>{
               {Shape({diagonal_length(d[0], d[1], ctx.attrs.get<std::int64_t>("k"))}), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{diag_part_adjoint(g[0], n.inputs[0], n.attrs.get<std::int64_t>("k"))};
         }});
  r.add({.name = "diag_part_adjoint",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_rank(ctx, 0, 1, "a vector and a matrix");
           expect_rank(ctx, 1, 2, "a vector and a matrix");
           const auto& m = ctx.inputs[1].shape.dims();
           const std::int64_t n = ctx.inputs[0].shape.dims()[0];
           const std::int64_t want = diagonal_length(m[0], m[1], ctx.attrs.get<std::int64_t>("k"));
           if (n != kUnknownDim && want != kUnknownDim && n != want)
             throw ShapeError(ctx.op + ": a vector of " + std::to_string(n) + " for a diagonal of " + std::to_string(want) +
                              " in " + ctx.inputs[1].shape.to_string());
           return std::vector<TensorSpec>{{ctx.inputs[1].shape, ctx.inputs[0].dtype}};
         },
         .differentiable = false});
}

Output diag_matrix(Output v, std::int64_t k) { return v.graph->add("diag_matrix", {v}, Attrs{{"k", k}}); }

Output diag_part(Output m, std::int64_t k) { return m.graph->add("diag_part", {m}, Attrs{{"k", k}}); }

Output diag_part_adjoint(Output v, Output m, std::int64_t k) {
  return v.graph->add("diag_part_adjoint", {v, m}, Attrs{{"k", k}});
}

}  // namespace strata::ops
