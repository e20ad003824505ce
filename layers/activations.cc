#include "layers/activations.h"

#include <cmath>
#include <functional>
#include <map>

#include "core/error.h"
#include "core/ops.h"

namespace strata::activations {

Output elu(Output x, float alpha) {
  // max(x, 0) + alpha * (exp(min(x, 0)) - 1): exp never sees large inputs, so no inf*0.
  // relu for the positive branch: at exactly 0 only the negative branch carries the
  // gradient (alpha), as in TF; maximum would pass it on both sides.
  return ops::add(ops::relu(x), ops::mul(ops::sub(ops::exp(ops::minimum(x, 0.0f)), 1.0f), alpha));
}

Output leaky_relu(Output x, float negative_slope) {
  return ops::add(ops::relu(x), ops::mul(ops::minimum(x, 0.0f), negative_slope));
}

Output gelu(Output x, bool approximate) {
  if (approximate) {
    // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Output inner = ops::mul(ops::add(x, ops::mul(ops::mul(ops::square(x), x), 0.044715f)),
                            static_cast<float>(std::sqrt(2.0 / M_PI)));
    return ops::mul(ops::mul(x, 0.5f), ops::add(ops::tanh(inner), 1.0f));
  }
  return ops::mul(ops::mul(x, 0.5f), ops::add(ops::erf(ops::mul(x, static_cast<float>(M_SQRT1_2))), 1.0f));
}

namespace {

using Fn = std::function<Output(Output)>;

const std::map<std::string, Fn>& table() {
  static const std::map<std::string, Fn> t = {
      {"linear", [](Output x) { return x; }},
      {"relu", [](Output x) { return ops::relu(x); }},
      {"sigmoid", [](Output x) { return ops::sigmoid(x); }},
      {"tanh", [](Output x) { return ops::tanh(x); }},
      {"softmax", [](Output x) { return ops::softmax(x, -1); }},
      {"elu", [](Output x) { return elu(x); }},
      {"selu",
       [](Output x) { return ops::mul(elu(x, 1.6732632423543772f), 1.0507009873554805f); }},
      {"gelu", [](Output x) { return gelu(x, false); }},
      {"softplus", [](Output x) { return ops::softplus(x); }},
      {"softsign", [](Output x) { return ops::div(x, ops::add(ops::abs(x), 1.0f)); }},
      {"swish", [](Output x) { return ops::mul(x, ops::sigmoid(x)); }},
      {"silu", [](Output x) { return ops::mul(x, ops::sigmoid(x)); }},
      {"leaky_relu", [](Output x) { return leaky_relu(x); }},
      {"hard_sigmoid", [](Output x) { return ops::clip(ops::add(ops::div(x, 6.0f), 0.5f), 0.0f, 1.0f); }},
      {"hard_sigmoid_keras2", [](Output x) { return ops::clip(ops::add(ops::mul(x, 0.2f), 0.5f), 0.0f, 1.0f); }},
      {"exponential", [](Output x) { return ops::exp(x); }},
      {"relu6", [](Output x) { return ops::minimum(ops::relu(x), 6.0f); }},
      {"mish", [](Output x) { return ops::mul(x, ops::tanh(ops::softplus(x))); }},
      {"log_softmax", [](Output x) { return ops::log_softmax(x, -1); }},
      {"hard_silu", [](Output x) { return ops::mul(x, ops::clip(ops::add(ops::div(x, 6.0f), 0.5f), 0.0f, 1.0f)); }},
      {"hard_swish", [](Output x) { return ops::mul(x, ops::clip(ops::add(ops::div(x, 6.0f), 0.5f), 0.0f, 1.0f)); }},
  };
  return t;
}

}  // namespace

std::vector<std::string> names() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : table()) out.push_back(name);
  return out;
}

void validate(const std::string& name) {
  if (name.empty() || table().count(name)) return;
  std::string known;
  for (const auto& n : names()) known += (known.empty() ? "" : ", ") + n;
  throw ValueError("unknown activation '" + name + "'; known: " + known);
}

Output apply(const std::string& name, Output x) {
  if (name.empty()) return x;
  validate(name);
  return table().at(name)(x);
}

}  // namespace strata::activations
