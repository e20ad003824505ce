// map_coordinates and its adjoint (core/ops/map_coordinates.h): shapes, attributes and the
// gradient. The CPU registers their kernels (cpu/kernels/map_coordinates.cc).
#include "core/ops/map_coordinates.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

Shape sampled_shape(const InferContext& ctx, const Shape& inputs, const Shape& coordinates) {
  if (ctx.inputs[0].dtype != DType::float32 || ctx.inputs[1].dtype != DType::float32)
    throw ValueError(ctx.op + ": takes float32 inputs and coordinates, got " + to_string(ctx.inputs[0].dtype) +
                     " and " + to_string(ctx.inputs[1].dtype));
  if (coordinates.rank() < 2 || coordinates.dims()[0] != inputs.rank())
    throw ShapeError(ctx.op + ": coordinates must be (" + std::to_string(inputs.rank()) +
                     ", ...), one row per axis of the inputs " + inputs.to_string() + ", got " + coordinates.to_string());
  return Shape(std::vector<std::int64_t>(coordinates.dims().begin() + 1, coordinates.dims().end()));
}

}  // namespace

void register_map_coordinates_ops(OpRegistry& r) {
  r.add({.name = "map_coordinates",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const auto order = ctx.attrs.get<std::int64_t>("order");
           if (order != 0 && order != 1)
             throw NotImplementedError(ctx.op + ": order " + std::to_string(order) + " (Keras computes 0 and 1)");
           const std::string mode = ctx.attrs.get<std::string>("fill_mode");
           if (mode != "constant" && mode != "nearest" && mode != "wrap" && mode != "mirror" && mode != "reflect")
             throw ValueError(ctx.op + ": fill_mode must be constant, nearest, wrap, mirror or reflect, got '" + mode +
                              "'");
           return std::vector<TensorSpec>{
               {sampled_shape(ctx, ctx.inputs[0].shape, ctx.inputs[1].shape), DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{map_coordinates_adjoint(g[0], n.inputs[0], n.inputs[1], n.attrs), Output{}};
         }});
  r.add({.name = "map_coordinates_adjoint",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           return std::vector<TensorSpec>{{ctx.inputs[1].shape, DType::float32}};
         },
         .differentiable = false});
}

Output map_coordinates(Output inputs, Output coordinates, int order, const std::string& fill_mode,
                       double fill_value) {
  return inputs.graph->add("map_coordinates", {inputs, coordinates},
                           Attrs{{"order", std::int64_t{order}}, {"fill_mode", fill_mode}, {"fill_value", fill_value}});
}

Output map_coordinates_adjoint(Output dy, Output inputs, Output coordinates, const Attrs& attrs) {
  return dy.graph->add("map_coordinates_adjoint", {dy, inputs, coordinates}, attrs);
}

}  // namespace strata::ops
