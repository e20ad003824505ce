#include "core/ops/scan_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// The shape of x (float32), its axis checked: every op of the family keeps the shape.
std::vector<TensorSpec> infer_along_axis(const InferContext& ctx, std::size_t inputs) {
  expect_inputs(ctx, inputs);
  for (std::size_t i = 0; i < inputs; ++i) expect_float_input(ctx, i);
  const Shape& x = ctx.inputs[0].shape;
  const auto axis = ctx.attrs.get<std::int64_t>("axis");
  if (axis < -x.rank() || axis >= x.rank())
    throw ValueError(ctx.op + ": axis " + std::to_string(axis) + " is out of range for input " + x.to_string());
  for (std::size_t i = 1; i < inputs; ++i) {
    if (ctx.inputs[i].shape != x)
      throw ShapeError(ctx.op + ": input " + std::to_string(i) + " " + ctx.inputs[i].shape.to_string() +
                       " differs from input 0 " + x.to_string());
  }
  return {{x, DType::float32}};
}

int axis_of(const Node& n) { return static_cast<int>(n.attrs.get<std::int64_t>("axis")); }

}  // namespace

void register_scan_ops(OpRegistry& r) {
  r.add({.name = "cumsum",
         .infer = [](const InferContext& ctx) { return infer_along_axis(ctx, 1); },
         // Each input adds to every output from it on: the adjoint sums the gradient the
         // other way.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{cumsum(g[0], axis_of(n), !n.attrs.get<bool>("reverse"))};
         }});
  r.add({.name = "cumprod",
         .infer = [](const InferContext& ctx) { return infer_along_axis(ctx, 1); },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{
               g[0].graph->add("cumprod_grad", {n.inputs[0], g[0]}, Attrs{{"axis", n.attrs.get<std::int64_t>("axis")}})};
         }});
  // (x, g) -> dx of cumprod. Not differentiable again: a second derivative of cumprod is
  // not needed by any layer.
  r.add({.name = "cumprod_grad",
         .infer = [](const InferContext& ctx) { return infer_along_axis(ctx, 2); },
         .differentiable = false});
  r.add({.name = "argsort",
         .infer = [](const InferContext& ctx) {
           std::vector<TensorSpec> out = infer_along_axis(ctx, 1);
           out[0].dtype = DType::int32;
           return out;
         },
         .differentiable = false});
  r.add({.name = "reverse",
         .infer = [](const InferContext& ctx) { return infer_along_axis(ctx, 1); },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reverse(g[0], axis_of(n))};
         }});
}

Output cumsum(Output x, int axis, bool reverse) {
  return x.graph->add("cumsum", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}, {"reverse", reverse}});
}

Output cumprod(Output x, int axis) {
  return x.graph->add("cumprod", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}

Output reverse(Output x, int axis) {
  return x.graph->add("reverse", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}

Output argsort(Output x, int axis, bool descending) {
  return x.graph->add("argsort", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}, {"descending", descending}});
}

Output column_minus_row(Output x) {
  const int rank = x.shape().rank();
  if (rank < 2) throw ShapeError("column_minus_row: needs two axes, got " + x.shape().to_string());
  const Output ones = ones_like(x);
  return sub(cumsum(ones, rank - 1), cumsum(ones, rank - 2));
}

ScanLanes scan_lanes(const Shape& x, const Attrs& attrs) {
  const int axis = x.normalize_axis(static_cast<int>(attrs.get<std::int64_t>("axis")));
  return {x.product(0, axis), x.dims()[static_cast<std::size_t>(axis)], x.product(axis + 1, x.rank())};
}

}  // namespace strata::ops
