// Shape ops: reshape (with the dim_from entries of core/ops/array_ops.h), reshape_like,
// broadcast_like, sum_to_like. The devices register their kernels (the CPU's in
// cpu/kernels/shape.cc).
#include <string>
#include <vector>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// `target`'s dim_from(k, i) entries are dim k of inputs[i] (unknown while it is); one -1 is
// inferred from the size once every other dim and the input are known.
Shape infer_reshape(const std::vector<TensorSpec>& inputs, const std::vector<std::int64_t>& target) {
  const Shape& in = inputs[0].shape;
  int inferred = -1;
  bool unknown = !in.is_fully_defined();
  std::int64_t known = 1;
  std::vector<std::int64_t> out = target;
  for (int i = 0; i < static_cast<int>(target.size()); ++i) {
    std::int64_t& d = out[static_cast<std::size_t>(i)];
    if (d == -1) {
      if (inferred >= 0) throw ShapeError("reshape: target " + Shape(target).to_string() + " has two -1 dims");
      inferred = i;
      continue;
    }
    if (d < -1) {
      const std::int64_t axis = (-d - 2) % 8, input = (-d - 2) / 8;
      if (input >= static_cast<std::int64_t>(inputs.size()) ||
          axis >= inputs[static_cast<std::size_t>(input)].shape.rank()) {
        throw ShapeError("reshape: target entry " + std::to_string(i) + " names dim " + std::to_string(axis) +
                         " of input " + std::to_string(input) + ", which it does not have");
      }
      d = inputs[static_cast<std::size_t>(input)].shape.dims()[static_cast<std::size_t>(axis)];
      if (d == kUnknownDim) {
        unknown = true;
        continue;
      }
    }
    known *= d;
  }
  if (unknown) return Shape(std::move(out));  // -1 stays unknown until run time
  std::int64_t total = in.num_elements();
  if (inferred >= 0) {
    if (known == 0 || total % known != 0) {
      throw ShapeError("reshape: cannot reshape " + in.to_string() + " into " + Shape(out).to_string());
    }
    out[static_cast<std::size_t>(inferred)] = total / known;
  } else if (known != total) {
    throw ShapeError("reshape: cannot reshape " + in.to_string() + " (" + std::to_string(total) +
                     " elements) into " + Shape(out).to_string());
  }
  return Shape(std::move(out));
}

}  // namespace

void register_shape_ops(OpRegistry& r) {
  r.add({.name = "reshape",
         .infer = [](const InferContext& ctx) {
           if (ctx.inputs.empty()) expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{
               {infer_reshape(ctx.inputs, ctx.attrs.get<std::vector<std::int64_t>>("shape")), ctx.inputs[0].dtype}};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           std::vector<Output> grads{reshape_like(g[0], n.inputs[0])};
           grads.resize(n.inputs.size());  // dims_from: only their shapes are read
           return grads;
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
Output reshape(Output x, const std::vector<std::int64_t>& shape, const std::vector<Output>& dims_from) {
  std::vector<Output> inputs{x};
  inputs.insert(inputs.end(), dims_from.begin(), dims_from.end());
  return x.graph->add("reshape", inputs, Attrs{{"shape", shape}});
}
Output reshape_like(Output x, Output like) {
  if (x.shape() == like.shape() && x.shape().is_fully_defined()) return x;
  return x.graph->add("reshape_like", {x, like});
}
Output broadcast_like(Output x, Output like) { return x.graph->add("broadcast_like", {x, like}); }
Output sum_to_like(Output x, Output like) { return x.graph->add("sum_to_like", {x, like}); }

}  // namespace strata::ops
