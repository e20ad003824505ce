#include "core/ops/causal_mask.h"

#include "core/cuda/indicator_kernels.h"
#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/cuda_kernel.h"
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
         .cpu_kernel = [](KernelContext& ctx) {
           Tensor& out = ctx.output(0);
           const std::int64_t rows = out.shape()[0], cols = out.shape()[1];
           float* v = out.data<float>();
           for (std::int64_t i = 0; i < rows; ++i) {
             for (std::int64_t j = 0; j < cols; ++j) v[i * cols + j] = i >= j ? 1.f : 0.f;
           }
         },
         // Depends on the scores' shape only.
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::causal_mask)});
}

Output causal_mask(Output scores) { return scores.graph->add("causal_mask", {scores}); }

}  // namespace strata::ops
