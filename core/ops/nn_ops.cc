// Neural-network ops: softmax, log_softmax, sparsemax, pick/unpick (sparse labels), argmax,
// dropout. The devices register their kernels (the CPU's in cpu/kernels/nn.cc).
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> infer_same_float(const InferContext& ctx) {
  expect_inputs(ctx, 1);
  if (ctx.inputs[0].dtype != DType::float32) throw ValueError(ctx.op + ": expects float32 input");
  if (ctx.inputs[0].shape.rank() == 0) throw ShapeError(ctx.op + ": expects rank >= 1, got a scalar");
  ctx.inputs[0].shape.normalize_axis(static_cast<int>(ctx.attrs.get<std::int64_t>("axis")));
  return {ctx.inputs[0]};
}

void check_pick_shapes(const std::string& op, const Shape& x, const Shape& labels) {
  Shape lead(std::vector<std::int64_t>(x.dims().begin(), x.dims().end() - 1));
  if (!labels.is_compatible_with(lead)) {
    throw ShapeError(op + ": labels of shape " + labels.to_string() + " do not match predictions of shape " +
                     x.to_string() + " (expected labels of shape " + lead.to_string() + ")");
  }
}

}  // namespace

void register_nn_ops(OpRegistry& r) {
  r.add({.name = "softmax", .infer = infer_same_float,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output y{n.inputs[0].graph, n.id, 0};
           const std::int64_t axis = n.attrs.get<std::int64_t>("axis");
           if (n.precision != ComputePrecision::float32) {
             // TensorFlow's gradient of a bfloat16 / float16 softmax: its ops (g·y, the sum,
             // the difference, the product) each in that dtype, each rounded (the graph's
             // precision is the node's while its gradient is built: core/autodiff.cc).
             return std::vector<Output>{mul(sub(g[0], reduce_sum(mul(g[0], y), {axis}, true)), y)};
           }
           return std::vector<Output>{n.inputs[0].graph->add("softmax_grad", {g[0], y}, Attrs{{"axis", axis}})};
         }});
  // softmax_grad(g, y) = y * (g - sum(g * y)) along the axis, in one pass per lane where
  // the composed ops took four over the whole tensor (attention's (batch, heads, T, T)).
  // Its own gradient: with s = sum(g * y) and G the incoming gradient, d/dg is
  // softmax_grad(G, y) and d/dy is G * (g - s) - g * sum(G * y).
  r.add({.name = "softmax_grad",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           if (ctx.inputs[0].shape != ctx.inputs[1].shape)
             throw ShapeError("softmax_grad: gradient " + ctx.inputs[0].shape.to_string() + " and softmax " +
                              ctx.inputs[1].shape.to_string() + " differ");
           ctx.inputs[1].shape.normalize_axis(static_cast<int>(ctx.attrs.get<std::int64_t>("axis")));
           return std::vector<TensorSpec>{{ctx.inputs[1].shape, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output dy = n.inputs[0], y = n.inputs[1];
           const std::int64_t axis = n.attrs.get<std::int64_t>("axis");
           Output d_dy = n.inputs[0].graph->add("softmax_grad", {g[0], y}, Attrs{{"axis", axis}});
           Output s = reduce_sum(mul(dy, y), {axis}, true);
           Output d_y = sub(mul(g[0], sub(dy, s)), mul(dy, reduce_sum(mul(g[0], y), {axis}, true)));
           return std::vector<Output>{d_dy, d_y};
         }});
  r.add({.name = "sparsemax", .infer = infer_same_float,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{g[0].graph->add("sparsemax_grad", {g[0], n.inputs[0]},
                                                      Attrs{{"axis", n.attrs.get<std::int64_t>("axis")}})};
         }});
  r.add({.name = "sparsemax_grad",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           if (ctx.inputs[0].shape != ctx.inputs[1].shape)
             throw ShapeError("sparsemax_grad: gradient " + ctx.inputs[0].shape.to_string() + " and input " +
                              ctx.inputs[1].shape.to_string() + " differ");
           return std::vector<TensorSpec>{{ctx.inputs[1].shape, DType::float32}};
         },
         .differentiable = false});  // no second derivative
  r.add({.name = "log_softmax", .infer = infer_same_float,
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output y{n.inputs[0].graph, n.id, 0};
           std::int64_t axis = n.attrs.get<std::int64_t>("axis");
           return std::vector<Output>{sub(g[0], mul(exp(y), reduce_sum(g[0], {axis}, true)))};
         }});
  r.add({.name = "pick",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_float_input(ctx, 0, "predictions");
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() < 1) throw ShapeError("pick: predictions must have rank >= 1");
           check_pick_shapes("pick", x, ctx.inputs[1].shape);
           return std::vector<TensorSpec>{{ctx.inputs[1].shape, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{unpick(g[0], n.inputs[1], n.inputs[0]), Output{}};
         }});
  r.add({.name = "unpick",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           expect_float_input(ctx, 0, "gradient");
           check_pick_shapes("unpick", ctx.inputs[2].shape, ctx.inputs[1].shape);
           if (!ctx.inputs[0].shape.is_compatible_with(ctx.inputs[1].shape)) {
             throw ShapeError("unpick: gradient of shape " + ctx.inputs[0].shape.to_string() +
                              " does not match labels of shape " + ctx.inputs[1].shape.to_string());
           }
           return std::vector<TensorSpec>{{ctx.inputs[2].shape, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{pick(g[0], n.inputs[1]), Output{}, Output{}};
         }});
  r.add({.name = "argmax",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           const Shape& x = ctx.inputs[0].shape;
           int axis = x.normalize_axis(static_cast<int>(ctx.attrs.get<std::int64_t>("axis")));
           Axes axes;
           axes.push_back(axis);
           return std::vector<TensorSpec>{{reduced_shape(x, axes, false), DType::int64}};
         },
         .differentiable = false});
  r.add({.name = "dropout",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_float_input(ctx, 0);
           double rate = ctx.attrs.get<double>("rate");
           if (rate < 0.0 || rate >= 1.0) {
             throw ValueError("dropout: rate must be in [0, 1), got " + std::to_string(rate));
           }
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         // Dropout is linear in x with a mask that is a pure function of its attributes
         // and the step, so its adjoint is the same dropout applied to the gradient.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{g[0].graph->add("dropout", {g[0]}, n.attrs)};
         },
         .random = true});
}

Output softmax(Output x, int axis) {
  return x.graph->add("softmax", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}
Output sparsemax(Output x, int axis) {
  return x.graph->add("sparsemax", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}
Output log_softmax(Output x, int axis) {
  return x.graph->add("log_softmax", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}
Output pick(Output x, Output labels) { return x.graph->add("pick", {x, labels}); }
Output unpick(Output g, Output labels, Output like) { return g.graph->add("unpick", {g, labels, like}); }
Output argmax(Output x, int axis) {
  return x.graph->add("argmax", {x}, Attrs{{"axis", static_cast<std::int64_t>(axis)}});
}
Output dropout(Output x, float rate, std::uint64_t seed, std::uint64_t stream) {
  return x.graph->add("dropout", {x},
                      Attrs{{"rate", static_cast<double>(rate)},
                            {"seed", static_cast<std::int64_t>(seed)},
                            {"stream", static_cast<std::int64_t>(stream)}});
}

}  // namespace strata::ops
