// The random ops (core/ops/random_ops.h): random_normal_like. The devices register their
// kernels (the CPU's in cpu/kernels/random.cc, CUDA's in cuda/random_normal_kernels.cc).
#include "core/ops/random_ops.h"

#include <vector>

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
}

Output random_normal_like(Output like, std::uint64_t seed, std::uint64_t stream) {
  return like.graph->add("random_normal_like", {like},
                         Attrs{{"seed", static_cast<std::int64_t>(seed)},
                               {"stream", static_cast<std::int64_t>(stream)}});
}

}  // namespace strata::ops
