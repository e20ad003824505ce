#include "layers/core/float8_quantization.h"

#include "core/ops.h"

namespace strata::layers {

std::optional<std::int64_t> float8_history_of(const std::string& mode) {
  if (mode.rfind("float8/", 0) != 0) return std::nullopt;
  const std::string digits = mode.substr(7);
  if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  const std::int64_t length = std::stoll(digits);
  if (length < 1) return std::nullopt;
  return length;
}

std::string float8_mode(std::int64_t history_length) { return "float8/" + std::to_string(history_length); }

void add_float8_weights(const std::function<Variable(const std::string&, const Shape&, const std::string&)>& add,
                        Float8Weights& w, std::int64_t history_length) {
  const Shape history{history_length};
  w.inputs_scale = add("inputs_scale", Shape{}, "ones");
  w.inputs_amax_history = add("inputs_amax_history", history, "zeros");
  w.kernel_scale = add("kernel_scale", Shape{}, "ones");
  w.kernel_amax_history = add("kernel_amax_history", history, "zeros");
  w.outputs_grad_scale = add("outputs_grad_scale", Shape{}, "ones");
  w.outputs_grad_amax_history = add("outputs_grad_amax_history", history, "zeros");
}

Output quantize_dequantize_float8(Graph& graph, Output v, const Variable& scale) {
  const Output s = graph.variable(scale);
  return ops::mul(ops::round_to_float8_e4m3fn(ops::clip(ops::div(v, s), -448.f, 448.f)), s);
}

}  // namespace strata::layers
