// Source ops (placeholder, variable, scalar constant, fill_like) and identity-like ops.
#include <cstring>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> no_infer(const InferContext& ctx) {
  throw Error("op '" + ctx.op + "' is created by Graph, not add_node");
}

}  // namespace

void register_source_ops(OpRegistry& r) {
  r.add({.name = "placeholder", .infer = no_infer, .differentiable = false, .fed = true});
  // A variable is a leaf: gradients flow to it, none flow further.
  r.add({.name = "variable", .infer = no_infer,
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{}; },
         .fed = true});
  r.add({.name = "constant",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 0);
           return std::vector<TensorSpec>{{Shape{}, DType::float32}};
         },
         .differentiable = false});
  r.add({.name = "fill_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& like = ctx.inputs[0].shape;
           std::vector<std::int64_t> dims = like.dims();
           if (const auto* axes = ctx.attrs.find<std::vector<std::int64_t>>("collapsed_axes")) {
             for (std::int64_t a : *axes) {
               if (a < 0 || a >= like.rank()) {
                 throw ShapeError("fill_like: collapsed axis " + std::to_string(a) + " is outside " +
                                  like.to_string());
               }
               dims[static_cast<std::size_t>(a)] = 1;
             }
           }
           return std::vector<TensorSpec>{{Shape(dims), DType::float32}};
         },
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; }});
  r.add({.name = "identity",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           // ops::round_gradient's: the gradient rounded to the precision the attr names.
           if (!g[0].valid()) return std::vector<Output>{g[0]};
           return std::vector<Output>{g[0].graph->rounded(g[0], gradient_rounding_of(n))};
         },
         .takes_strings = true});
  r.add({.name = "stop_gradient",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; },
         .takes_strings = true});
  r.add({.name = "cast",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const DType to = parse_dtype(ctx.attrs.get<std::string>("dtype"));
           if (to == DType::string) {
             throw ValueError("cast: cannot cast " + to_string(ctx.inputs[0].dtype) +
                              " to string (strings come from data: Input(dtype string), CSV, .npy)");
           }
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, to}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           // Only float-to-float casts carry a gradient.
           bool both_float = n.inputs[0].dtype() == DType::float32 && n.outputs[0].dtype == DType::float32;
           return std::vector<Output>{both_float ? g[0] : Output{}};
         }});
}

Output constant(Graph& graph, float value) {
  return graph.add("constant", {}, Attrs{{"value", static_cast<double>(value)}}, "const");
}
Output fill_like(Output like, float value) {
  return like.graph->add("fill_like", {like}, Attrs{{"value", static_cast<double>(value)}});
}
Output fill_like(Output like, float value, const std::vector<std::int64_t>& collapsed_axes) {
  if (collapsed_axes.empty()) return fill_like(like, value);
  return like.graph->add("fill_like", {like},
                         Attrs{{"value", static_cast<double>(value)}, {"collapsed_axes", collapsed_axes}});
}
Output zeros_like(Output like) { return fill_like(like, 0.0f); }
Output ones_like(Output like) { return fill_like(like, 1.0f); }
Output identity(Output x) { return x.graph->add("identity", {x}); }
Output round_gradient(Output x, ComputePrecision precision) {
  if (precision == ComputePrecision::float32) return x;
  Attrs attrs;
  set_gradient_rounding(attrs, precision);
  return x.graph->add("identity", {x}, std::move(attrs));
}
Output stop_gradient(Output x) { return x.graph->add("stop_gradient", {x}); }
Output cast(Output x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return x.graph->add("cast", {x}, Attrs{{"dtype", to_string(dtype)}});
}

}  // namespace strata::ops
