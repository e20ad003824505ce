// The random ops (core/ops/random_ops.h): random_normal_like, random_uniform_rows and
// tf_stateless_normal_like. The devices register their kernels (the CPU's in
// cpu/kernels/random.cc, CUDA's in cuda/random_normal_kernels.cc and
// cuda/random_uniform_kernels.cc; tf_stateless_normal_like has the CPU's only).
#include "core/ops/random_ops.h"

#include <string>
#include <vector>

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

void register_random_ops(OpRegistry& r) {
  r.add({.name = "random_normal_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::float32}};
         },
         // The draws depend on the attributes and the step, never on the values of
         // `like`: as fill_like, no gradient flows to it.
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; },
         .random = true});
  r.add({.name = "random_uniform_rows",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& like = ctx.inputs[0].shape;
           if (like.rank() < 1) {
             throw ShapeError(ctx.op + ": needs a batch axis, got shape " + like.to_string());
           }
           const std::int64_t rows = ctx.attrs.get<bool>("per_sample") ? like.dims()[0] : 1;
           return std::vector<TensorSpec>{{Shape({rows, ctx.attrs.get<std::int64_t>("columns")}),
                                           DType::float32}};
         },
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; },
         .random = true});
  r.add({.name = "tf_stateless_normal_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::float32}};
         },
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; }});
}

Output random_normal_like(Output like, std::uint64_t seed, std::uint64_t stream) {
  return like.graph->add("random_normal_like", {like},
                         Attrs{{"seed", static_cast<std::int64_t>(seed)},
                               {"stream", static_cast<std::int64_t>(stream)}});
}

Output tf_stateless_normal_like(Output like, std::int64_t seed0, std::int64_t seed1) {
  return like.graph->add("tf_stateless_normal_like", {like}, Attrs{{"seed0", seed0}, {"seed1", seed1}});
}

Output random_uniform_rows(Output like, std::int64_t columns, bool per_sample, std::uint64_t seed,
                           std::uint64_t stream) {
  if (columns < 1) throw ValueError("random_uniform_rows: columns must be positive, got " + std::to_string(columns));
  return like.graph->add("random_uniform_rows", {like},
                         Attrs{{"seed", static_cast<std::int64_t>(seed)},
                               {"stream", static_cast<std::int64_t>(stream)},
                               {"columns", columns},
                               {"per_sample", per_sample}});
}

}  // namespace strata::ops
