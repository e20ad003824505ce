#include "core/ops/causal_mask.h"

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/register.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

void register_causal_mask_ops(OpRegistry& r) {
  r.add({.name = "causal_mask",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const Shape& s = ctx.inputs[0].shape;
           if (s.rank() < 2) throw ShapeError("causal_mask: scores " + s.to_string() + " need rank >= 2");
           return std::vector<TensorSpec>{{Shape{s[-2], s[-1]}, DType::float32}};
         },
         // Depends on the scores' shape only.
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; }});
}

Output causal_mask(Output scores) { return scores.graph->add("causal_mask", {scores}); }

}  // namespace strata::ops
