// Dense's and EinsumDense's product, bias and activation under a bfloat16 or float16 dtype
// policy, as Keras's TensorFlow backend computes them on the CPU (docs/precision.md,
// "Mixed precision"; measured against Keras by tests/reference/mixed_precision_emulation.py):
// in predict's graphs TensorFlow's oneDNN fusion takes a bfloat16 rank-2 MatMul with its
// bias add and activation (relu, tanh, sigmoid, gelu) into one kernel that works in
// float32 and rounds once, and its gradient rounds the activation's; otherwise each op
// rounds its result and its gradient (the graph's PrecisionScope).
#pragma once

#include <string>

#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "layers/activations.h"

namespace strata::layers {

// The activations TensorFlow's oneDNN fusion takes into the product's kernel.
inline bool fused_by_onednn(const std::string& activation) {
  return activation.empty() || activation == "linear" || activation == "relu" || activation == "tanh" ||
         activation == "sigmoid" || activation == "gelu";
}

// Whether the product of rank `rank` (its input's) is fused as above under the graph's
// precision.
inline bool fused_like_onednn(const Graph& graph, int rank) {
  return graph.precision() == ComputePrecision::bfloat16 && rank == 2;
}

// NotImplementedError (the layer's call adds its name) for an activation whose low-precision form in Keras's
// backend is not its float32 result rounded once: sigmoid (exp, 1 + e and the division
// each rounded) and gelu (four rounded ops) outside the fusion, softmax in float16 (Eigen's
// half-precision sum). Linear, relu and tanh round once everywhere.
inline void check_low_precision_activation(const Graph& graph, const std::string& activation, bool fused) {
  if (graph.precision() == ComputePrecision::float32) return;
  if (activation.empty() || activation == "linear" || activation == "relu" || activation == "tanh") return;
  if (fused && (activation == "sigmoid" || activation == "gelu")) return;
  if (activation == "softmax" && graph.precision() == ComputePrecision::bfloat16) return;
  throw NotImplementedError("activation '" + activation + "' in " +
                            (graph.precision() == ComputePrecision::bfloat16 ? "bfloat16" : "float16") +
                            " here is computed by Keras's backend in steps Strata does not emulate yet (linear, "
                            "relu and tanh are; docs/precision.md)");
}

// act(product(x, kernel) + bias) under the graph's bfloat16 or float16 precision: fused,
// the operands rounded and the rest computed in float32 (one rounding, of the layer's
// output); otherwise each op rounded, the bias added as its own op. `bias` may be absent.
template <typename Product>
Output low_precision_product(Graph& graph, bool fused, Output x, Output kernel, Output bias,
                             const std::string& activation, Product product) {
  if (fused) {
    const ComputePrecision precision = graph.precision();
    x = graph.rounded(x, precision);
    kernel = graph.rounded(kernel, precision);
    bias = graph.rounded(bias, precision);
    Output y;
    {
      PrecisionScope in_float32(graph, ComputePrecision::float32);
      y = product(x, kernel);
      if (bias.valid()) y = ops::add(y, bias);
      if (fused_by_onednn(activation)) {
        // TensorFlow's gradient of the fused kernel: its activation's gradient (ReluGrad,
        // TanhGrad) in the compute dtype, rounded before the bias's and the product's
        // gradients read it.
        return activations::apply(activation, ops::round_gradient(y, precision));
      }
    }
    // An activation the fusion does not take (softmax) follows as its own op in the
    // compute dtype, on the rounded sum of the fused product and bias.
    return activations::apply(activation, y);
  }
  Output y = product(x, kernel);
  if (bias.valid()) y = ops::add(y, bias);
  return activations::apply(activation, y);
}

// Whether the fused form's activation runs inside the product's op (fused_low_precision_op).
inline bool fuses_into_one_op(const std::string& activation) {
  return activation.empty() || activation == "linear" || activation == "relu";
}

// The fused form (low_precision_product's, fused) with a linear or relu activation as one
// op that adds the bias and applies the relu in the product's pass (ops::dense,
// ops::conv2d_bias_activation), its gradient rounding the relu's (their
// gradient_rounding): the same values in fewer passes. `op(x, kernel, bias, precision)`
// adds that op.
template <typename ProductBiasRelu>
Output fused_low_precision_op(Graph& graph, Output x, Output kernel, Output bias, ProductBiasRelu op) {
  const ComputePrecision precision = graph.precision();
  x = graph.rounded(x, precision);
  kernel = graph.rounded(kernel, precision);
  bias = graph.rounded(bias, precision);
  PrecisionScope in_float32(graph, ComputePrecision::float32);
  return op(x, kernel, bias, precision);
}

}  // namespace strata::layers
