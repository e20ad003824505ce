// The ops whose result's size depends on the values (core/ops/data_sized_ops.h): nonzero,
// bincount and unique. The CPU registers their kernels (cpu/kernels/data_sized.cc).
#include "core/ops/data_sized_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"
#include "core/sized_outputs.h"

namespace strata::ops {

namespace {

void expect_numbers(const InferContext& ctx, const char* what) {
  const DType d = ctx.inputs[0].dtype;
  if (d != DType::float32 && d != DType::int32 && d != DType::int64)
    throw ValueError(ctx.op + ": " + what + " must be float32, int32 or int64, got " + to_string(d));
}

}  // namespace

void register_data_sized_ops(OpRegistry& r) {
  r.add({.name = "nonzero",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_numbers(ctx, "its input");
           const int rank = ctx.inputs[0].shape.rank();
           if (rank < 1) throw ShapeError(ctx.op + ": takes a tensor of rank 1 or more, got a scalar");
           return std::vector<TensorSpec>(static_cast<std::size_t>(rank), TensorSpec{Shape({kUnknownDim}), DType::int32});
         },
         .differentiable = false});
  r.add({.name = "bincount",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_numbers(ctx, "its input");
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() != 1 && x.rank() != 2)
             throw ShapeError(ctx.op + ": counts along the last axis of a tensor of rank 1 or 2 (TensorFlow's "
                              "bincount), got " + x.to_string());
           if (ctx.attrs.get<std::int64_t>("minlength") < 0)
             throw ValueError(ctx.op + ": minlength must be 0 or more, got " +
                              std::to_string(ctx.attrs.get<std::int64_t>("minlength")));
           const Shape out = x.rank() == 1 ? Shape({kUnknownDim}) : Shape({x.dims()[0], kUnknownDim});
           return std::vector<TensorSpec>{{out, DType::int32}};
         },
         .differentiable = false});
  r.add({.name = "unique",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           expect_numbers(ctx, "its input");
           const auto size = ctx.attrs.get<std::int64_t>("size");
           const std::int64_t n = size >= 0 ? size : kUnknownDim;
           std::vector<TensorSpec> out{{Shape({n}), ctx.inputs[0].dtype}};
           if (ctx.attrs.get<bool>("return_index")) out.push_back({Shape({n}), DType::int32});
           if (ctx.attrs.get<bool>("return_inverse")) out.push_back({ctx.inputs[0].shape, DType::int32});
           if (ctx.attrs.get<bool>("return_counts")) out.push_back({Shape({n}), DType::int32});
           return out;
         },
         .differentiable = false});
}

std::vector<Output> unique(Output x, const UniqueOptions& o) {
  return x.graph->add_node("unique", {x},
                           Attrs{{"sorted", o.sorted},
                                 {"return_index", o.return_index},
                                 {"return_inverse", o.return_inverse},
                                 {"return_counts", o.return_counts},
                                 {"size", o.size},
                                 {"fill_value", o.fill_value},
                                 {kSizesOutputsAttr, o.size < 0}});
}

std::vector<Output> nonzero(Output x) {
  return x.graph->add_node("nonzero", {x}, Attrs{{kSizesOutputsAttr, true}});
}

Output bincount(Output x, std::int64_t minlength) {
  return x.graph->add("bincount", {x}, Attrs{{"minlength", minlength}, {kSizesOutputsAttr, true}});
}

}  // namespace strata::ops
