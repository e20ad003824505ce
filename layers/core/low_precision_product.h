// Dense's and EinsumDense's product, bias and activation under a bfloat16 or float16 dtype
// policy, as Keras's TensorFlow backend computes them on the CPU (docs/precision.md,
// "Mixed precision"; measured against Keras by tests/reference/mixed_precision_emulation.py):
// in predict's graphs TensorFlow's oneDNN fusion takes a bfloat16 rank-2 MatMul with its
// bias add and activation (relu, tanh, sigmoid, gelu) into one kernel that works in
// float32 and rounds once; otherwise each op rounds its result (the graph's PrecisionScope).
#pragma once

#include <string>

#include "core/error.h"
#include "core/graph.h"
#include "core/ops.h"
#include "layers/activations.h"

namespace strata::layers {

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
    PrecisionScope in_float32(graph, ComputePrecision::float32);
    Output y = product(x, kernel);
    if (bias.valid()) y = ops::add(y, bias);
    return activations::apply(activation, y);
  }
  Output y = product(x, kernel);
  if (bias.valid()) y = ops::add(y, bias);
  return activations::apply(activation, y);
}

}  // namespace strata::layers
