#include "layers/activations.h"

#include <cmath>
#include <functional>
#include <map>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"

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
  return ops::gelu(x);
}

// Masks as values: the comparison ops have no gradient, so x * [x > 0] passes x's
// gradient exactly where the mask is 1, which is how TF places gradients at the kinks.
namespace {
Output above(Output x, float v) { return ops::greater(x, ops::constant(*x.graph, v)); }
Output below(Output x, float v) { return ops::less(x, ops::constant(*x.graph, v)); }
Output at_least(Output x, float v) { return ops::greater_equal(x, ops::constant(*x.graph, v)); }
}  // namespace

// TF's relu6: gradient 1 only strictly inside (0, 6) (the op's gradient).
Output relu6(Output x) { return ops::relu6(x); }

Output softmax_over(Output x, const std::vector<std::int64_t>& axes_in) {
  const auto rank = static_cast<std::int64_t>(x.shape().rank());
  std::vector<std::int64_t> axes;
  for (std::int64_t a : axes_in) {
    if (a < -rank || a >= rank)
      throw ValueError("axis " + std::to_string(a) + " is out of range for input " + x.shape().to_string());
    axes.push_back(a < 0 ? a + rank : a);
  }
  if (axes.size() == 1) return ops::softmax(x, static_cast<int>(axes[0]));
  // exp(x - logsumexp(x, axes)), the max subtracted for range.
  const Output e = ops::exp(ops::sub(x, ops::stop_gradient(ops::reduce_max(x, axes, true))));
  return ops::div(e, ops::reduce_sum(e, axes, true));
}

Output glu(Output x) {
  // a * sigmoid(b), a and b the two halves of the last axis.
  const Shape& s = x.shape();
  const std::int64_t n = s.rank() ? s.dims().back() : 0;
  if (n == kUnknownDim || n % 2 != 0)
    throw ShapeError("glu needs an even, known last dimension, got " + s.to_string());
  std::vector<std::int64_t> none(s.rank(), 0), half = none;
  half.back() = n / 2;
  return ops::mul(ops::crop(x, none, half), ops::sigmoid(ops::crop(x, half, none)));
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
      // TF's selu: the positive branch owns x == 0 (gradient scale there).
      {"selu",
       [](Output x) {
         const Output negative = ops::mul(ops::sub(ops::exp(ops::minimum(x, 0.0f)), 1.0f), 1.6732632423543772f);
         return ops::mul(ops::add(ops::mul(x, at_least(x, 0.0f)), ops::mul(negative, below(x, 0.0f))),
                         1.0507009873554805f);
       }},
      {"gelu", [](Output x) { return gelu(x, false); }},
      {"softplus", [](Output x) { return ops::softplus(x); }},
      {"softsign", [](Output x) { return ops::div(x, ops::add(ops::abs(x), 1.0f)); }},
      {"swish", [](Output x) { return ops::silu(x); }},
      {"silu", [](Output x) { return ops::silu(x); }},
      {"leaky_relu", [](Output x) { return leaky_relu(x); }},
      {"hard_sigmoid", [](Output x) { return ops::div(relu6(ops::add(x, 3.0f)), 6.0f); }},
      {"hard_sigmoid_keras2", [](Output x) { return ops::clip(ops::add(ops::mul(x, 0.2f), 0.5f), 0.0f, 1.0f); }},
      {"exponential", [](Output x) { return ops::exp(x); }},
      {"relu6", [](Output x) { return relu6(x); }},
      {"mish", [](Output x) { return ops::mul(x, ops::tanh(ops::softplus(x))); }},
      {"log_softmax", [](Output x) { return ops::log_softmax(x, -1); }},
      {"hard_silu", [](Output x) { return ops::mul(x, ops::div(relu6(ops::add(x, 3.0f)), 6.0f)); }},
      {"hard_swish", [](Output x) { return ops::mul(x, ops::div(relu6(ops::add(x, 3.0f)), 6.0f)); }},
      // Keras 3's newer names (keras.activations), in Keras's formulas.
      // TF: max(0, x) + min(0, exp(x) - 1), both sides passing gradient at 0 (celu'(0) = 2).
      {"celu",
       [](Output x) {
         const Output negative = ops::sub(ops::exp(ops::minimum(x, 0.0f)), 1.0f);
         return ops::add(ops::mul(x, at_least(x, 0.0f)), ops::mul(negative, ops::less_equal(x, ops::constant(*x.graph, 0.0f))));
       }},
      {"glu", [](Output x) { return glu(x); }},
      {"hard_shrink", [](Output x) { return ops::mul(x, ops::greater(ops::abs(x), ops::constant(*x.graph, 0.5f))); }},
      {"soft_shrink",
       [](Output x) {
         Graph& g = *x.graph;
         return ops::add(ops::mul(ops::sub(x, 0.5f), ops::greater(x, ops::constant(g, 0.5f))),
                         ops::mul(ops::add(x, 0.5f), ops::less(x, ops::constant(g, -0.5f))));
       }},
      {"hard_tanh", [](Output x) { return ops::clip(x, -1.0f, 1.0f); }},
      {"log_sigmoid", [](Output x) { return ops::neg(ops::softplus(ops::neg(x))); }},
      {"sparse_plus",
       [](Output x) {
         // (x + 1)^2 / 4 on [-1, 1], 0 below, x above.
         return ops::add(ops::mul(ops::square(ops::add(ops::clip(x, -1.0f, 1.0f), 1.0f)), 0.25f),
                         ops::relu(ops::sub(x, 1.0f)));
       }},
      {"sparse_sigmoid",
       [](Output x) {
         // (x + 1) / 2 strictly inside (-1, 1), 1 from 1 up: gradient 0 at the ends, as TF.
         return ops::add(ops::mul(ops::mul(ops::mul(ops::add(x, 1.0f), 0.5f), above(x, -1.0f)), below(x, 1.0f)),
                         at_least(x, 1.0f));
       }},
      {"squareplus", [](Output x) { return ops::mul(ops::add(x, ops::sqrt(ops::add(ops::square(x), 4.0f))), 0.5f); }},
      {"tanh_shrink", [](Output x) { return ops::sub(x, ops::tanh(x)); }},
      {"sparsemax", [](Output x) { return ops::sparsemax(x, -1); }},
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
