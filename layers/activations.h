// Activation functions by Keras name, as graph ops (keras-spec §2 and Keras 3 defaults).
#pragma once

#include <string>
#include <vector>

#include "core/graph.h"

namespace strata::activations {

// Applies the named activation. "linear" (or "") returns x unchanged, adding no node.
// Names: relu, sigmoid, tanh, softmax, elu, selu, gelu, softplus, softsign, swish,
// silu, leaky_relu (slope 0.2), hard_sigmoid (Keras 3: relu6(x+3)/6),
// hard_sigmoid_keras2 (clip(0.2x+0.5, 0, 1), for files from Keras 2), exponential, relu6,
// mish, log_softmax, hard_silu/hard_swish, linear.
Output apply(const std::string& name, Output x);
// Throws ValueError listing the known names when `name` is not one.
void validate(const std::string& name);
std::vector<std::string> names();

Output elu(Output x, float alpha = 1.0f);
Output leaky_relu(Output x, float negative_slope = 0.2f);
Output gelu(Output x, bool approximate = false);
Output glu(Output x);
Output relu6(Output x);
// Softmax over one axis or several (negative axes count from the end); ValueError for an
// axis the input does not have.
Output softmax_over(Output x, const std::vector<std::int64_t>& axes);  // TF's: gradient 1 strictly inside (0, 6)

}  // namespace strata::activations
