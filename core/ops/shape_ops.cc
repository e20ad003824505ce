// Shape ops: reshape, reshape_like, broadcast_like, sum_to_like. The devices register
// their kernels (the CPU's in cpu/kernels/shape.cc).
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

Shape infer_reshape(const Shape& in, const std::vector<std::int64_t>& target) {
  int inferred = -1;
  std::int64_t known = 1;
  for (int i = 0; i < static_cast<int>(target.size()); ++i) {
    if (target[i] == -1) {
      if (inferred >= 0) throw ShapeError("reshape: target " + Shape(target).to_string() + " has two -1 dims");
      inferred = i;
    } else if (target[i] < 0) {
      throw ShapeError("reshape: invalid target dimension in " + Shape(target).to_string());
    } else {
      known *= target[i];
    }
  }
  std::vector<std::int64_t> out = target;
  if (!in.is_fully_defined()) return Shape(std::move(out));  // -1 stays unknown
  std::int64_t total = in.num_elements();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      throw ShapeError("reshape: cannot reshape " + in.to_string() + " into " + Shape(target).to_string());
    }
    out[inferred] = total / known;
  } else if (known != total) {
    throw ShapeError("reshape: cannot reshape " + in.to_string() + " (" + std::to_string(total) +
                     " elements) into " + Shape(target).to_string());
  }
  return Shape(std::move(out));
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  r.add({.name = "reshape",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{
               {infer_reshape(ctx.inputs[0].shape, ctx.attrs.get<std::vector<std::int64_t>>("shape")),
                ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0])};
         },
         .takes_strings = true});
  r.add({.name = "reshape_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const Shape& in = ctx.inputs[0].shape;
           const Shape& like = ctx.inputs[1].shape;
           if (in.is_fully_defined() && like.is_fully_defined() && in.num_elements() != like.num_elements()) {
             throw ShapeError("reshape_like: cannot reshape " + in.to_string() + " to " + like.to_string());
           }
           return std::vector<TensorSpec>{{like, ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{reshape_like(g[0], n.inputs[0]), Output{}};
         },
         .takes_strings = true});
  r.add({.name = "broadcast_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_float_input(ctx, 0);
           const Shape& like = ctx.inputs[1].shape;
           Shape b = broadcast_shapes("broadcast_like", ctx.inputs[0].shape, like);
           if (!b.is_compatible_with(like)) {
             throw ShapeError("broadcast_like: " + ctx.inputs[0].shape.to_string() + " does not broadcast to " +
                              like.to_string());
           }
           return std::vector<TensorSpec>{{like, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{sum_to_like(g[0], n.inputs[0]), Output{}};
         }});
  r.add({.name = "sum_to_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           expect_float_input(ctx, 0);
           const Shape& like = ctx.inputs[1].shape;
           Shape b = broadcast_shapes("sum_to_like", like, ctx.inputs[0].shape);
           if (!b.is_compatible_with(ctx.inputs[0].shape)) {
             throw ShapeError("sum_to_like: " + like.to_string() + " does not broadcast to " +
                              ctx.inputs[0].shape.to_string());
           }
           return std::vector<TensorSpec>{{like, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           return std::vector<Output>{broadcast_like(g[0], n.inputs[0]), Output{}};
         }});
}

Output reshape(Output x, const std::vector<std::int64_t>& shape) {
  return x.graph->add("reshape", {x}, Attrs{{"shape", shape}});
}
Output reshape_like(Output x, Output like) {
  if (x.shape() == like.shape() && x.shape().is_fully_defined()) return x;
  return x.graph->add("reshape_like", {x, like});
}
Output broadcast_like(Output x, Output like) { return x.graph->add("broadcast_like", {x, like}); }
Output sum_to_like(Output x, Output like) { return x.graph->add("sum_to_like", {x, like}); }

}  // namespace strata::ops
