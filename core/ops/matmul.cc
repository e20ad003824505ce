// matmul and dense (the same product with the bias and a relu fused into it): shape
// inference and gradients; dense_int8, Keras's int8 Dense product. The CPU kernels (register_matmul_kernels) run them on the CPU
// backend's GEMM, two Dense layers in a row at batch 1 as one kernel; CUDA runs both on cuBLAS.
#include "core/ops/matmul.h"

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/fused_activation.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

std::pair<std::int64_t, std::int64_t> as_matrix(const Shape& s) {
  if (s.rank() < 1) return {1, 1};
  return {s.product(0, s.rank() - 1), s.dims()[s.rank() - 1]};
}

namespace {

// The gradient of an input that a rounding op made (a layer's kernel, or its input, rounded
// to its compute dtype) is rounded by that op's gradient; so is, after its relu's mask, the
// gradient of an input that a product with a gradient_rounding made (the previous fused
// bfloat16 Dense or Conv2D: rounding commutes with the mask). A product of two values of
// that precision computed for it is built in the precision (Graph::add_node): it rounds
// its own output and no rounding op reads it back. Where the input has one reader, the same
// values; where several send it gradients (a trunk read by two heads), autodiff sums the
// contributions in float32 before the rounding, and each is now rounded before the sum —
// as TensorFlow computes them: its MatMul gradients of bfloat16 operands are bfloat16, and
// so is their AddN. Otherwise as it is.
template <typename Product>
Output product_for_gradient_of(const Output& input, const Output& a, const Output& b, Product product) {
  Graph& graph = *input.graph;
  const Node& producer = graph.node(input.node);
  const ComputePrecision precision = producer.op == rounding_op(ComputePrecision::bfloat16) ? ComputePrecision::bfloat16
                                     : producer.op == rounding_op(ComputePrecision::float16)
                                         ? ComputePrecision::float16
                                         : gradient_rounding_of(producer);
  if (precision == ComputePrecision::float32 || !graph.holds_values_of(a, precision) ||
      !graph.holds_values_of(b, precision)) {
    return product();
  }
  PrecisionScope in_its_precision(graph, precision);
  return product();
}

std::string describe(const Shape& a, const Shape& b, bool ta, bool tb) {
  return "matmul: shapes " + a.to_string() + (ta ? "ᵀ" : "") + " and " + b.to_string() + (tb ? "ᵀ" : "") +
         " cannot be multiplied";
}

std::vector<TensorSpec> infer_matmul(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  const Shape& a = ctx.inputs[0].shape;
  const Shape& b = ctx.inputs[1].shape;
  bool ta = ctx.attrs.get<bool>("transpose_a"), tb = ctx.attrs.get<bool>("transpose_b");
  if (ctx.inputs[0].dtype != DType::float32 || ctx.inputs[1].dtype != DType::float32) {
    throw ValueError("matmul: expects float32 inputs");
  }
  if (a.rank() < 2 || b.rank() < 2) throw ShapeError(describe(a, b, ta, tb) + " (both need rank >= 2)");
  auto [ar, ac] = as_matrix(a);
  auto [br, bc] = as_matrix(b);
  std::int64_t inner_a = ta ? ar : ac, inner_b = tb ? bc : br;
  if (inner_a >= 0 && inner_b >= 0 && inner_a != inner_b) throw ShapeError(describe(a, b, ta, tb));
  std::int64_t n = tb ? br : bc;
  if (ta) return {{Shape{ac, n}, DType::float32}};
  return {{a.with_dim(a.rank() - 1, n), DType::float32}};
}

// Reshapes a gradient computed in matrix form back to the input's shape when the input
// was N-D (its leading dims were flattened).
Output to_input_shape(Output grad, Output input) {
  return grad.shape() == input.shape() ? grad : reshape_like(grad, input);
}

std::vector<TensorSpec> infer_dense(const InferContext& ctx) {
  if (ctx.inputs.size() != 2 && ctx.inputs.size() != 3) {
    throw ValueError("dense: expects 2 or 3 inputs (x, kernel[, bias]), got " + std::to_string(ctx.inputs.size()));
  }
  for (const auto& in : ctx.inputs) {
    if (in.dtype != DType::float32) throw ValueError("dense: expects float32 inputs");
  }
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  if (x.rank() < 2 || k.rank() != 2) {
    throw ShapeError("dense: input " + x.to_string() + " needs rank >= 2 and kernel " + k.to_string() + " rank 2");
  }
  const std::int64_t in = x.dims().back();
  if (in != kUnknownDim && k.dims()[0] != kUnknownDim && in != k.dims()[0]) {
    throw ShapeError("dense: input " + x.to_string() + " and kernel " + k.to_string() + " cannot be multiplied");
  }
  const std::int64_t units = k.dims()[1];
  if (ctx.inputs.size() == 3 && ctx.inputs[2].shape != Shape{units}) {
    throw ShapeError("dense: bias " + ctx.inputs[2].shape.to_string() + " does not match " + std::to_string(units) +
                     " units");
  }
  const std::string act = ctx.attrs.get_or<std::string>("activation", "");
  if (!act.empty() && act != "relu") throw ValueError("dense: fused activation must be '' or 'relu', got '" + act + "'");
  return {{x.with_dim(x.rank() - 1, units), DType::float32}};
}

std::vector<TensorSpec> infer_dense_int8(const InferContext& ctx) {
  if (ctx.inputs.size() != 3 && ctx.inputs.size() != 4) {
    throw ValueError("dense_int8: expects 3 or 4 inputs (x, kernel, kernel_scale[, bias]), got " +
                     std::to_string(ctx.inputs.size()));
  }
  for (const auto& in : ctx.inputs) {
    if (in.dtype != DType::float32) throw ValueError("dense_int8: expects float32 inputs");
  }
  const Shape& x = ctx.inputs[0].shape;
  const Shape& k = ctx.inputs[1].shape;
  if (x.rank() < 2 || k.rank() != 2) {
    throw ShapeError("dense_int8: expects x of rank >= 2 and a kernel of rank 2, got " + x.to_string() + " and " +
                     k.to_string());
  }
  const std::int64_t in = x.dims().back();
  if (in != kUnknownDim && k.dims()[0] != kUnknownDim && in != k.dims()[0]) {
    throw ShapeError("dense_int8: input " + x.to_string() + " and kernel " + k.to_string() + " cannot be multiplied");
  }
  if (k.dims()[0] > kDenseInt8MaxDepth) {
    throw ValueError("dense_int8: " + std::to_string(k.dims()[0]) + " inputs; int32 sums hold at most " +
                     std::to_string(kDenseInt8MaxDepth));
  }
  const std::int64_t units = k.dims()[1];
  if (ctx.inputs[2].shape != Shape{units}) {
    throw ShapeError("dense_int8: kernel_scale " + ctx.inputs[2].shape.to_string() + " does not match " +
                     std::to_string(units) + " units");
  }
  if (ctx.inputs.size() == 4 && ctx.inputs[3].shape != Shape{units}) {
    throw ShapeError("dense_int8: bias " + ctx.inputs[3].shape.to_string() + " does not match " +
                     std::to_string(units) + " units");
  }
  const std::string act = ctx.attrs.get_or<std::string>("activation", "");
  if (!act.empty() && act != "relu") {
    throw ValueError("dense_int8: fused activation must be '' or 'relu', got '" + act + "'");
  }
  return {{x.with_dim(x.rank() - 1, units), DType::float32}};
}

}  // namespace

void register_matmul_ops(OpRegistry& r) {
  // Not differentiable: rounding to integers has no gradient, and Keras's int8 layers give
  // their input the float product's (layers/core/int8_quantization.h).
  r.add({.name = "dense_int8", .infer = infer_dense_int8, .differentiable = false});
  r.add({.name = "dense", .infer = infer_dense,
         // y = act(x · k + b): dz = relu_grad(dy, y) (or dy), then matmul's adjoints and
         // the sum over every axis but the last for the bias.
         .gradient = [](const Node& n, const std::vector<Output>& g) {
           Output x = n.inputs[0], k = n.inputs[1];
           Output dz = g[0];
           if (fuses_relu(n)) dz = relu_grad(dz, Output{x.graph, n.id, 0});
           // ops::dense's gradient_rounding (no op where dz holds rounded values already).
           dz = x.graph->rounded(dz, gradient_rounding_of(n));
           std::vector<Output> grads{product_for_gradient_of(x, dz, k, [&] { return matmul(dz, k, false, true); }),
                                     product_for_gradient_of(k, x, dz, [&] { return matmul(x, dz, true, false); })};
           if (n.inputs.size() == 3) {
             std::vector<std::int64_t> leading(static_cast<std::size_t>(x.shape().rank() - 1));
             for (std::size_t i = 0; i < leading.size(); ++i) leading[i] = static_cast<std::int64_t>(i);
             grads.push_back(reduce_sum(dz, leading));
           }
           return grads;
         },
         .rounds_own_output = true});
  r.add({.name = "matmul", .infer = infer_matmul,
         .gradient = [](const Node& n, const std::vector<Output>& grads) {
           Output a = n.inputs[0], b = n.inputs[1], g = grads[0];
           bool ta = n.attrs.get<bool>("transpose_a"), tb = n.attrs.get<bool>("transpose_b");
           Output da, db;
           if (!ta && !tb) {
             da = matmul(g, b, false, true);
             db = matmul(a, g, true, false);
           } else if (!ta && tb) {
             da = matmul(g, b, false, false);
             db = matmul(g, a, true, false);
           } else if (ta && !tb) {
             da = matmul(b, g, false, true);
             db = matmul(a, g, false, false);
           } else {
             da = matmul(b, g, true, true);
             db = matmul(g, a, true, true);
           }
           return std::vector<Output>{to_input_shape(da, a), to_input_shape(db, b)};
         },
         .rounds_own_output = true});
}

namespace {

// A product whose operands are both bfloat16 values (an emulated bfloat16 layer's, forward
// or backward: docs/precision.md) is marked for the bfloat16 GEMM where the CPU has one
// (core/cpu/kernels/matmul.cc): it multiplies those values exactly as the float GEMM does,
// in another order of the float32 sums.
void mark_bfloat16_operands(const Output& a, const Output& b, Attrs& attrs) {
  const Graph& graph = *a.graph;
  // Under a bfloat16 PrecisionScope the graph rounds the operands as it adds the node.
  const bool rounded_when_added = graph.precision() == ComputePrecision::bfloat16;
  if (rounded_when_added ||
      (graph.holds_values_of(a, ComputePrecision::bfloat16) && graph.holds_values_of(b, ComputePrecision::bfloat16))) {
    attrs.set("operands", std::string("bfloat16"));
  }
}

}  // namespace

Output dense(Output x, Output kernel, Output bias, const std::string& activation, ComputePrecision gradient_rounding) {
  Attrs attrs;
  if (!activation.empty()) attrs.set("activation", activation);
  set_gradient_rounding(attrs, gradient_rounding);
  // The fused form's output is rounded once, as the layer's result: by the kernel.
  set_output_rounding(attrs, gradient_rounding);
  mark_bfloat16_operands(x, kernel, attrs);
  std::vector<Output> inputs{x, kernel};
  if (bias.valid()) inputs.push_back(bias);
  return x.graph->add("dense", inputs, std::move(attrs));
}

Output dense_int8(Output x, Output kernel, Output kernel_scale, Output bias, const std::string& activation) {
  Attrs attrs;
  if (!activation.empty()) attrs.set("activation", activation);
  std::vector<Output> inputs{x, kernel, kernel_scale};
  if (bias.valid()) inputs.push_back(bias);
  return x.graph->add("dense_int8", inputs, std::move(attrs));
}

Output matmul(Output a, Output b, bool transpose_a, bool transpose_b) {
  Attrs attrs{{"transpose_a", transpose_a}, {"transpose_b", transpose_b}};
  mark_bfloat16_operands(a, b, attrs);
  return a.graph->add("matmul", {a, b}, std::move(attrs));
}

}  // namespace strata::ops
