// Reductions over axes (sum, mean, max) and expand_to, their adjoint. The devices register
// their kernels (the CPU's in cpu/kernels/reduce.cc); all four also run on CUDA devices.
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> infer_reduce(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  if (ctx.inputs[0].dtype != DType::float32) throw ValueError(ctx.op + ": expects float32 input");
  auto axes = reduction_axes(ctx.op, ctx.attrs.get<std::vector<std::int64_t>>("axes"), ctx.inputs[0].shape.rank());
  return {{reduced_shape(ctx.inputs[0].shape, axes, ctx.attrs.get<bool>("keepdims")), DType::float32}};
}

std::vector<std::int64_t> axes_of(const Node& n) { return n.attrs.get<std::vector<std::int64_t>>("axes"); }

}  // namespace

void register_reduce_ops(OpRegistry& r) {
  r.add({.name = "reduce_sum", .infer = infer_reduce,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{expand_to(g[0], n.inputs[0], axes_of(n), false)};
         }});
  r.add({.name = "reduce_mean", .infer = infer_reduce,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{expand_to(g[0], n.inputs[0], axes_of(n), true)};
         }});
  r.add({.name = "reduce_max", .infer = infer_reduce,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0];
           Output y{x.graph, n.id, 0};
           Output mask = equal(x, expand_to(y, x, axes_of(n), false));
           // Tied maxima share the gradient equally, as in TF and JAX.
           Output share = div(mask, expand_to(reduce_sum(mask, axes_of(n), false), x, axes_of(n), false));
           return std::vector<Output>{mul(expand_to(g[0], x, axes_of(n), false), share)};
         }});
  r.add({.name = "expand_to",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_float_input(ctx, 0, "gradient");
           const Shape& like = ctx.inputs[1].shape;
           auto axes = reduction_axes(ctx.op, ctx.attrs.get<std::vector<std::int64_t>>("axes"), like.rank());
           const Shape& g = ctx.inputs[0].shape;
           Shape keep = reduced_shape(like, axes, true), drop = reduced_shape(like, axes, false);
           if (!g.is_compatible_with(keep) && !g.is_compatible_with(drop)) {
             throw ShapeError("expand_to: " + g.to_string() + " is not a reduction of " + like.to_string());
           }
           return std::vector<TensorSpec>{{like, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           bool keepdims = n.inputs[0].shape().rank() == n.inputs[1].shape().rank();
           Output gg = n.attrs.get<bool>("mean") ? reduce_mean(g[0], axes_of(n), keepdims)
                                                 : reduce_sum(g[0], axes_of(n), keepdims);
           return std::vector<Output>{gg, Output{}};
         }});
}

Output reduce_sum(Output x, std::vector<std::int64_t> axes, bool keepdims) {
  return x.graph->add("reduce_sum", {x}, Attrs{{"axes", std::move(axes)}, {"keepdims", keepdims}});
}
Output reduce_mean(Output x, std::vector<std::int64_t> axes, bool keepdims) {
  return x.graph->add("reduce_mean", {x}, Attrs{{"axes", std::move(axes)}, {"keepdims", keepdims}});
}
Output reduce_max(Output x, std::vector<std::int64_t> axes, bool keepdims) {
  return x.graph->add("reduce_max", {x}, Attrs{{"axes", std::move(axes)}, {"keepdims", keepdims}});
}
Output expand_to(Output g, Output like, std::vector<std::int64_t> axes, bool mean) {
  return g.graph->add("expand_to", {g, like}, Attrs{{"axes", std::move(axes)}, {"mean", mean}});
}

}  // namespace strata::ops
