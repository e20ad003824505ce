// Keras 3.15's float8 quantization (QuantizedFloat8DTypePolicy, mode "float8" with its
// amax_history_length; docs/precision.md) as Dense and EinsumDense hold it and predict
// with it: the float32 kernel and bias kept, with per-layer scalar scales and amax
// histories for the inputs, the kernel and the output gradient. In predict Keras
// quantizes-and-dequantizes the inputs and the kernel, round_to_float8_e4m3fn(clip(v /
// scale, ±448)) · scale, multiplies in float32, adds the bias rounded to bfloat16 (TensorFlow's
// fusion wants it so) and applies the activation. Training updates the scales from the
// histories, which Strata does not emulate: fit refuses such models.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/graph.h"
#include "layers/layer.h"

namespace strata::layers {

// The amax history length of a float8 mode as Strata names it ("float8/1024": 1024);
// none for other modes.
std::optional<std::int64_t> float8_history_of(const std::string& mode);
// Strata's name of Keras's float8 mode with that history length.
std::string float8_mode(std::int64_t history_length);

struct Float8Weights {
  Variable inputs_scale, inputs_amax_history, kernel_scale, kernel_amax_history, outputs_grad_scale,
      outputs_grad_amax_history;
};
// Keras's float8 build's variables, after the kernel and bias, in its order (scales 1,
// histories 0; not trainable). `add` is the layer's add_weight for a frozen weight.
void add_float8_weights(const std::function<Variable(const std::string&, const Shape&, const std::string&)>& add,
                        Float8Weights& w, std::int64_t history_length);
// Keras's quantize_and_dequantize to float8_e4m3fn with a scalar scale variable.
Output quantize_dequantize_float8(Graph& graph, Output v, const Variable& scale);

}  // namespace strata::layers
