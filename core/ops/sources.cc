// Source ops (placeholder, variable, scalar constant, fill_like) and identity-like ops.
#include <cstring>

#include "core/cpu/parallel.h"
#include "core/cuda/array_kernels.h"
#include "core/cuda/sources_kernels.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/cuda_kernel.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> no_infer(const InferContext& ctx) {
  throw Error("op '" + ctx.op + "' is created by Graph, not add_node");
}

void fed_kernel(KernelContext& ctx) {
  throw Error("node '" + ctx.node.name + "' (" + ctx.node.op + ") must be fed, not computed");
}

template <typename From, typename To>
void cast_values(const Tensor& in, Tensor& out) {
  const From* src = in.data<From>();
  To* dst = out.data<To>();
  for (std::int64_t i = 0; i < in.size(); ++i) dst[i] = static_cast<To>(src[i]);
}

template <typename From>
void cast_from(const Tensor& in, Tensor& out) {
  switch (out.dtype()) {
    case DType::float32: cast_values<From, float>(in, out); break;
    case DType::int32: cast_values<From, std::int32_t>(in, out); break;
    case DType::int64: cast_values<From, std::int64_t>(in, out); break;
    case DType::string: throw ValueError("cast: numbers do not cast to strings");  // refused by inference
  }
}

}  // namespace

void register_source_ops(OpRegistry& r) {
  r.add({.name = "placeholder", .infer = no_infer, .cpu_kernel = fed_kernel, .differentiable = false, .fed = true});
  // A variable is a leaf: gradients flow to it, none flow further.
  r.add({.name = "variable", .infer = no_infer, .cpu_kernel = fed_kernel,
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{}; },
         .fed = true});
  r.add({.name = "constant",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 0);
           return std::vector<TensorSpec>{{Shape{}, DType::float32}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           *ctx.output(0).data<float>() = static_cast<float>(ctx.node.attrs.get<double>("value"));
         },
         .differentiable = false,
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::constant)});
  r.add({.name = "fill_like",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, DType::float32}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           float v = static_cast<float>(ctx.node.attrs.get<double>("value"));
           std::fill_n(ctx.output(0).data<float>(), ctx.output(0).size(), v);
         },
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::fill_like)});
  r.add({.name = "identity",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .cpu_kernel = copy_input_kernel,
         .gradient = [](const Node&, const std::vector<Output>& g) { return std::vector<Output>{g[0]}; },
         .takes_strings = true,
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::copy_input)});
  r.add({.name = "stop_gradient",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           return std::vector<TensorSpec>{ctx.inputs[0]};
         },
         .cpu_kernel = copy_input_kernel,
         .gradient = [](const Node&, const std::vector<Output>&) { return std::vector<Output>{Output{}}; },
         .takes_strings = true,
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::copy_input)});
  r.add({.name = "cast",
         .infer = [](const InferContext& ctx) {
           expect_inputs(ctx, 1);
           const DType to = parse_dtype(ctx.attrs.get<std::string>("dtype"));
           if (to == DType::string) {
             throw ValueError("cast: cannot cast " + to_string(ctx.inputs[0].dtype) +
                              " to string (strings come from data: Input(dtype string), CSV, .npy)");
           }
           return std::vector<TensorSpec>{{ctx.inputs[0].shape, to}};
         },
         .cpu_kernel = [](KernelContext& ctx) {
           const Tensor& in = ctx.input(0);
           switch (in.dtype()) {
             case DType::float32: cast_from<float>(in, ctx.output(0)); break;
             case DType::int32: cast_from<std::int32_t>(in, ctx.output(0)); break;
             case DType::int64: cast_from<std::int64_t>(in, ctx.output(0)); break;
             case DType::string: throw ValueError("cast: strings do not cast to numbers");  // refused when defined
           }
         },
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           // Only float-to-float casts carry a gradient.
           bool both_float = n.inputs[0].dtype() == DType::float32 && n.outputs[0].dtype == DType::float32;
           return std::vector<Output>{both_float ? g[0] : Output{}};
         },
         .cuda_kernel = STRATA_CUDA_KERNEL(cuda::cast)});
}

Output constant(Graph& graph, float value) {
  return graph.add("constant", {}, Attrs{{"value", static_cast<double>(value)}}, "const");
}
Output fill_like(Output like, float value) {
  return like.graph->add("fill_like", {like}, Attrs{{"value", static_cast<double>(value)}});
}
Output zeros_like(Output like) { return fill_like(like, 0.0f); }
Output ones_like(Output like) { return fill_like(like, 1.0f); }
Output identity(Output x) { return x.graph->add("identity", {x}); }
Output stop_gradient(Output x) { return x.graph->add("stop_gradient", {x}); }
Output cast(Output x, DType dtype) {
  if (x.dtype() == dtype) return x;
  return x.graph->add("cast", {x}, Attrs{{"dtype", to_string(dtype)}});
}

}  // namespace strata::ops
