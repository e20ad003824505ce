// scatter_update, gather_nd and checked_indices (core/ops/scatter_update.h): shapes, dtypes
// and gradients.
// The CPU registers their kernels (cpu/kernels/scatter_update.cc).
#include "core/ops/scatter_update.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// The index depth, checked against x's rank; indices' dtype checked.
std::int64_t index_depth(const InferContext& ctx, const Shape& x, const TensorSpec& indices) {
  if (indices.dtype != DType::int32 && indices.dtype != DType::int64 && indices.dtype != DType::float32)
    throw ValueError(ctx.op + ": indices must be int32, int64 or float32 whole numbers, got " +
                     to_string(indices.dtype));
  if (indices.shape.rank() < 1) throw ShapeError(ctx.op + ": indices need an index axis, got a scalar");
  const std::int64_t depth = indices.shape.dims().back();
  if (depth == kUnknownDim || depth < 1 || depth > x.rank())
    throw ShapeError(ctx.op + ": indices " + indices.shape.to_string() + " must end in an index depth from 1 to " +
                     std::to_string(x.rank()) + " (the rank of " + x.to_string() + ")");
  return depth;
}

// indices.shape[:-1] + x.shape[depth:]
Shape gathered_shape(const Shape& x, const Shape& indices, std::int64_t depth) {
  std::vector<std::int64_t> dims(indices.dims().begin(), indices.dims().end() - 1);
  dims.insert(dims.end(), x.dims().begin() + depth, x.dims().end());
  return Shape(dims);
}

}  // namespace

void register_scatter_update_ops(OpRegistry& r) {
  r.add({.name = "scatter_update",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 3);
           const TensorSpec& x = ctx.inputs[0];
           if (x.dtype != DType::float32 && x.dtype != DType::int32 && x.dtype != DType::int64)
             throw ValueError(ctx.op + ": takes float32, int32 or int64 inputs, got " + to_string(x.dtype));
           if (ctx.inputs[2].dtype != x.dtype)
             throw ValueError(ctx.op + ": updates are " + to_string(ctx.inputs[2].dtype) + " where the inputs are " +
                              to_string(x.dtype));
           const std::string reduction = ctx.attrs.get<std::string>("reduction");
           if (reduction != "" && reduction != "add" && reduction != "max" && reduction != "min" && reduction != "mul")
             throw ValueError(ctx.op + ": reduction must be None, 'add', 'max', 'min' or 'mul', got '" + reduction + "'");
           const std::int64_t depth = index_depth(ctx, x.shape, ctx.inputs[1]);
           const Shape want = gathered_shape(x.shape, ctx.inputs[1].shape, depth);
           const Shape& got = ctx.inputs[2].shape;
           bool fits = got.rank() == want.rank();
           for (int a = 0; fits && a < got.rank(); ++a)
             fits = got[a] == want[a] || got[a] == kUnknownDim || want[a] == kUnknownDim;
           if (!fits)
             throw ShapeError(ctx.op + ": updates " + got.to_string() + " do not fit indices " +
                              ctx.inputs[1].shape.to_string() + " into " + x.shape.to_string() + " (want " +
                              want.to_string() + ")");
           return std::vector<TensorSpec>{x};
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           const std::string reduction = n.attrs.get<std::string>("reduction");
           if (reduction != "" && reduction != "add")
             throw NotImplementedError("scatter_update '" + n.name + "' with reduction '" + reduction +
                                       "' has no gradient in Strata (None and 'add' have)");
           const Output indices = n.inputs[1];
           const Output dx = reduction == "add" ? g[0] : scatter_update(g[0], indices, zeros_like(n.inputs[2]));
           return std::vector<Output>{dx, Output{}, gather_nd(g[0], indices)};
         }});
  r.add({.name = "gather_nd",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 2);
           const std::int64_t depth = index_depth(ctx, ctx.inputs[0].shape, ctx.inputs[1]);
           return std::vector<TensorSpec>{
               {gathered_shape(ctx.inputs[0].shape, ctx.inputs[1].shape, depth), ctx.inputs[0].dtype}};
         },
         .differentiable = false});
  r.add({.name = "checked_indices",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape shape(ctx.attrs.get<std::vector<std::int64_t>>("shape"));
           index_depth(ctx, shape, ctx.inputs[0]);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .differentiable = false});
}

Output scatter_update(Output x, Output indices, Output updates, const std::string& reduction) {
  return x.graph->add("scatter_update", {x, indices, updates}, Attrs{{"reduction", reduction}});
}

Output gather_nd(Output x, Output indices) { return x.graph->add("gather_nd", {x, indices}); }

Output checked_indices(Output indices, std::vector<std::int64_t> shape) {
  return indices.graph->add("checked_indices", {indices}, Attrs{{"shape", std::move(shape)}});
}

}  // namespace strata::ops
