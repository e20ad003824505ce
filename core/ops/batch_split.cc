// batch_split (core/ops/batch_split.h): shapes and gradient. The CPU registers its kernel
// (cpu/kernels/batch_split.cc).
#include "core/ops/batch_split.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/array_ops.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

void register_batch_split_ops(OpRegistry& r) {
  r.add({.name = "batch_split",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& x = ctx.inputs[0].shape;
           const auto parts = ctx.attrs.get<std::int64_t>("parts");
           if (x.rank() < 1) throw ShapeError(ctx.op + ": cannot split a scalar");
           if (parts < 1) throw ValueError(ctx.op + ": needs 1 part or more, got " + std::to_string(parts));
           std::vector<std::int64_t> dims = x.dims();
           if (dims[0] != kUnknownDim) {
             if (dims[0] % parts != 0)
               throw ShapeError(ctx.op + ": " + std::to_string(parts) + " equal parts of axis 0 of " + x.to_string() +
                                " (" + std::to_string(dims[0]) + " does not divide)");
             dims[0] /= parts;
           }
           return std::vector<TensorSpec>(static_cast<std::size_t>(parts), TensorSpec{Shape(dims), ctx.inputs[0].dtype});
         },
         .gradient = [](const Node&, const std::vector<Output>& g) { return std::vector<Output>{concat(g, 0)}; }});
}

std::vector<Output> batch_split(Output x, std::int64_t parts) {
  return x.graph->add_node("batch_split", {x}, Attrs{{"parts", parts}});
}

}  // namespace strata::ops
