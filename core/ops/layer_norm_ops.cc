#include "core/ops/layer_norm_ops.h"

#include "core/error.h"
#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

void register_layer_norm_ops(OpRegistry& r) {
  r.add({.name = "layer_normalization_inference",
         .infer = [](const InferContext& ctx) {
           const bool scale = ctx.attrs.get<bool>("scale"), center = ctx.attrs.get<bool>("center");
           expect_inputs(ctx, 1 + (scale ? 1 : 0) + (center ? 1 : 0));
           expect_float_input(ctx, 0, "x");
           const Shape& x = ctx.inputs[0].shape;
           if (x.rank() < 1 || x.dims().back() == kUnknownDim) {
             throw ShapeError(ctx.op + ": x " + x.to_string() + " needs a known last axis");
           }
           for (std::size_t i = 1; i < ctx.inputs.size(); ++i) {
             expect_float_input(ctx, i, i == 1 && scale ? "gamma" : "beta");
             if (ctx.inputs[i].shape != Shape{x.dims().back()}) {
               throw ShapeError(ctx.op + ": " + (i == 1 && scale ? "gamma " : "beta ") +
                                ctx.inputs[i].shape.to_string() + " is not (" + std::to_string(x.dims().back()) +
                                ",) for x " + x.to_string());
             }
           }
           return std::vector<TensorSpec>{{x, DType::float32}};
         },
         .gradient = [](const Node& n, const std::vector<Output>&) -> std::vector<Output> {
           throw NotImplementedError("layer_normalization_inference '" + n.name +
                                     "': an inference rewrite, without a gradient (training runs the composite)");
         }});
}

Output layer_normalization_inference(Output x, Output gamma, Output beta, float epsilon) {
  std::vector<Output> inputs{x};
  if (gamma.valid()) inputs.push_back(gamma);
  if (beta.valid()) inputs.push_back(beta);
  return x.graph->add("layer_normalization_inference", inputs,
                      Attrs{{"epsilon", static_cast<double>(epsilon)}, {"scale", gamma.valid()},
                            {"center", beta.valid()}});
}

}  // namespace strata::ops
