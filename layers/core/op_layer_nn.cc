// keras.ops normalizations, cross-entropies and selections (issue #38): rms_normalization,
// layer_normalization, batch_normalization (given its statistics), the three cross-entropies,
// in_top_k, select, average, and append, vdot and cross, each in the formula Keras (ops/nn.py)
// and its TensorFlow backend compute, composed from graph ops (so that they run, with their
// gradients, wherever those do). Bool results are 0/1 floats as elsewhere in OpLayer.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/one_hot.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

constexpr float kEpsilon = 1e-7f;  // Keras's backend.epsilon()

float epsilon_of(C c, float fallback) {
  return c.has("epsilon") ? static_cast<float>(c.number("epsilon")) : fallback;
}

// The call's "axis" (an int or a list; `fallback` when absent) normalized and sorted.
std::vector<std::int64_t> sorted_axes(C c, const Output& x, std::int64_t fallback) {
  std::vector<std::int64_t> axes = c.axes("axis").value_or(std::vector<std::int64_t>{fallback});
  for (auto& a : axes) a = normalize_axis(a, x.shape().rank(), c.where);
  std::sort(axes.begin(), axes.end());
  return axes;
}

// x · rsqrt(mean(x², axes) + ε), times `scale` (None or a constant by keyword).
Output rms_normalization(C c) {
  const Output x = c.arg(0);
  const auto axes = sorted_axes(c, x, -1);
  const Output inverse = ops::div(1.0f, ops::sqrt(ops::add(ops::reduce_mean(ops::square(x), axes, true),
                                                           epsilon_of(c, kEpsilon))));
  const Output y = ops::mul(x, inverse);
  const auto scale = c.keyword("scale");
  return scale ? ops::mul(y, *scale) : y;
}

// Keras's _broadcast: a gamma / beta of another rank laid along the normalized axes, unless
// the only axis is the last (NumPy's broadcasting does that).
Output laid_along(C c, const Output& x, Output v, const std::vector<std::int64_t>& axes) {
  const int rank = rank_of(x);
  if (rank_of(v) == rank || (axes.size() == 1 && axes[0] == rank - 1)) return v;
  std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), 1);
  for (auto a : axes) dims[static_cast<std::size_t>(a)] = known_size(c, "axis", x, static_cast<int>(a));
  return ops::reshape(v, dims);
}

// x · inv + (beta − mean · inv), inv = rsqrt(variance + ε) · gamma, with tf.nn.moments'
// mean and variance (the variance about the mean held constant); rms_scaling as Keras's
// deprecated form: x · rsqrt(var(x) + ε) · gamma.
Output layer_normalization(C c) {
  const Output x = c.arg(0);
  const auto axes = sorted_axes(c, x, -1);
  const float epsilon = epsilon_of(c, kEpsilon);
  std::optional<Output> gamma, beta;
  if (c.given(1)) gamma = laid_along(c, x, c.arg(1), axes);
  if (c.given(2)) beta = laid_along(c, x, c.arg(2), axes);
  if (c.flag("rms_scaling")) {
    const Output variance = ops::reduce_mean(ops::square(ops::sub(x, ops::reduce_mean(x, axes, true))), axes, true);
    const Output y = ops::mul(x, ops::div(1.0f, ops::sqrt(ops::add(variance, epsilon))));
    return gamma ? ops::mul(y, *gamma) : y;
  }
  const Output mean = ops::reduce_mean(x, axes, true);
  const Output variance = ops::reduce_mean(ops::square(ops::sub(x, ops::stop_gradient(mean))), axes, true);
  Output inverse = ops::div(1.0f, ops::sqrt(ops::add(variance, epsilon)));
  if (gamma) inverse = ops::mul(inverse, *gamma);
  Output rest = ops::mul(ops::neg(mean), inverse);
  if (beta) rest = ops::add(rest, *beta);
  return ops::add(ops::mul(x, inverse), rest);
}

// tf.nn.batch_normalization with the given statistics (1-D, along `axis`):
// x · inv + (offset − mean · inv), inv = rsqrt(variance + ε) · scale.
Output batch_normalization(C c) {
  const Output x = c.arg(0);
  const int rank = rank_of(x);
  const auto axis = static_cast<int>(normalize_axis(static_cast<std::int64_t>(c.number("axis")), rank, c.where));
  if (axis == 0) refuse(c, "axis", "the statistics cannot lie along the batch axis");
  auto along = [&](Output v) {
    if (axis == rank - 1) return v;
    std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), 1);
    dims[static_cast<std::size_t>(axis)] = known_size(c, "axis", x, axis);
    return ops::reshape(v, dims);
  };
  const Output mean = along(c.arg(1)), variance = along(c.arg(2));
  Output inverse = ops::div(1.0f, ops::sqrt(ops::add(variance, epsilon_of(c, 1e-3f))));
  if (c.given(4)) inverse = ops::mul(inverse, along(c.arg(4)));
  Output rest = ops::mul(ops::neg(mean), inverse);
  if (c.given(3)) rest = ops::add(along(c.arg(3)), rest);
  return ops::add(ops::mul(x, inverse), rest);
}

// from_logits: max(z, 0) − z·t + log1p(exp(−|z|)), as tf.nn.sigmoid_cross_entropy_with_logits;
// otherwise −(t·log(p) + (1 − t)·log(1 − p)) with p clipped to [ε, 1 − ε].
Output binary_crossentropy(C c) {
  const Output t = c.arg(0), z = c.arg(1);
  if (c.flag("from_logits")) {
    return ops::add(ops::sub(ops::maximum(z, 0.0f), ops::mul(z, t)),
                    ops::log1p(ops::exp(ops::neg(ops::abs(z)))));
  }
  const Output p = ops::clip(z, kEpsilon, 1.0f - kEpsilon);
  return ops::neg(ops::add(ops::mul(t, ops::log(p)), ops::mul(ops::sub(1.0f, t), ops::log(ops::sub(1.0f, p)))));
}

// from_logits: −Σ t · log_softmax(z) along `axis` (tf.nn.softmax_cross_entropy_with_logits);
// otherwise p / Σ p clipped to [ε, 1 − ε], then −Σ t · log(p).
Output categorical_crossentropy(C c) {
  const Output t = c.arg(0), z = c.arg(1);
  const auto axis = static_cast<int>(
      normalize_axis(c.has("axis") ? static_cast<std::int64_t>(c.number("axis")) : -1, z.shape().rank(), c.where));
  if (axis == 0) refuse(c, "axis", "the classes cannot lie along the batch axis");
  if (c.flag("from_logits")) {
    // −Σ t · log_softmax(z) = Σt · lse(z) − Σ t·z, written so that its gradient is TensorFlow's
    // softmax(z) − t (its kernel's, which assumes Σt = 1) and −log_softmax(z) for t.
    const Output m = ops::stop_gradient(ops::reduce_max(z, {axis}, true));
    const Output lse = ops::add(ops::log(ops::reduce_sum(ops::exp(ops::sub(z, m)), {axis}, false)),
                                ops::reduce_sum(m, {axis}, false));
    const Output rest = ops::mul(ops::sub(ops::reduce_sum(t, {axis}, false), 1.0f), ops::stop_gradient(lse));
    return ops::add(ops::sub(lse, ops::reduce_sum(ops::mul(t, z), {axis}, false)), rest);
  }
  const Output p = ops::clip(ops::div(z, ops::reduce_sum(z, {axis}, true)), kEpsilon, 1.0f - kEpsilon);
  return ops::neg(ops::reduce_sum(ops::mul(t, ops::log(p)), {axis}, false));
}

// −log_softmax(z)[t] along the last axis, z the logits or log(p clipped to [ε, 1 − ε]); a
// target with a last axis of 1 is squeezed first.
Output sparse_categorical_crossentropy(C c) {
  Output t = c.arg(0);
  const Output z = c.arg(1);
  const int last = rank_of(z) - 1;
  if (c.has("axis") && normalize_axis(static_cast<std::int64_t>(c.number("axis")), z.shape().rank(), c.where) != last)
    refuse(c, "axis", "only the last axis is, as Keras's");
  const std::int64_t classes = known_size(c, "axis", z, last);
  if (rank_of(t) == rank_of(z) && t.shape().dims().back() == 1) t = drop_axis(t, rank_of(t) - 1, c.where);
  if (rank_of(t) != last)
    throw ValueError(c.where + ": target " + t.shape().to_string() + " does not match output " + z.shape().to_string());
  const Output logits = c.flag("from_logits") ? z : ops::log(ops::clip(z, kEpsilon, 1.0f - kEpsilon));
  const Output rows = ops::one_hot(ops::cast(t, DType::int32), classes);
  return ops::neg(ops::reduce_sum(ops::mul(rows, ops::log_softmax(logits, last)), {last}, false));
}

// Whether predictions[target] is among the k largest of its row: fewer than k predictions
// are larger (so ties straddling the k-th place are all in, as tf.math.in_top_k).
Output in_top_k(C c) {
  const Output targets = c.arg(0), predictions = c.arg(1);
  const int last = rank_of(predictions) - 1;
  const std::int64_t classes = known_size(c, "k", predictions, last);
  const Output rows = ops::one_hot(ops::cast(targets, DType::int32), classes);
  const Output picked = ops::reduce_sum(ops::mul(rows, predictions), {last}, true);
  const Output larger = ops::reduce_sum(ops::greater(predictions, picked), {last}, false);
  return ops::less(larger, ops::constant(c.graph, static_cast<float>(c.number("k"))));
}

// The choice of the first condition that holds, else `default`.
Output select(C c) {
  const std::vector<Output>& conditions = c.args.at(0);
  const std::vector<Output>& choices = c.args.at(1);
  if (conditions.size() != choices.size() || conditions.empty())
    throw ValueError(c.where + ": needs as many conditions as choices, got " + std::to_string(conditions.size()) +
                     " and " + std::to_string(choices.size()));
  Output y = c.given(2) ? ops::add(ops::zeros_like(choices.back()), c.arg(2)) : ops::zeros_like(choices.back());
  for (std::size_t i = conditions.size(); i-- > 0;)
    y = ops::where(ops::not_equal(conditions[i], ops::constant(c.graph, 0.f)), choices[i], y);
  return y;
}

// mean over the axes, or Σ x·w / Σ w with `weights` (a constant by keyword): of x's shape,
// or 1-D along the one axis.
Output average(C c) {
  const Output x = c.arg(0);
  std::vector<std::int64_t> axes;
  if (c.has("axis")) {
    axes = sorted_axes(c, x, -1);
  } else {
    for (int a = 0; a < rank_of(x); ++a) axes.push_back(a);
  }
  const auto weights = c.keyword("weights");
  if (!weights) return ops::reduce_mean(x, axes, false);
  Output w = *weights;
  if (rank_of(w) != rank_of(x)) {
    if (axes.size() != 1 || rank_of(w) != 1) refuse(c, "axis", "1-D weights need one axis");
    std::vector<std::int64_t> dims(static_cast<std::size_t>(rank_of(x)), 1);
    dims[static_cast<std::size_t>(axes[0])] = known_size(c, "axis", x, static_cast<int>(axes[0]));
    const Output sum = ops::reduce_sum(w, {0}, false);
    w = ops::reshape(w, dims);
    return ops::div(ops::reduce_sum(ops::mul(x, w), axes, false), sum);
  }
  return ops::div(ops::reduce_sum(ops::mul(x, w), axes, false), ops::reduce_sum(w, axes, false));
}

// np.append along an axis (None, which flattens the batch in, is refused).
Output append(C c) {
  const int axis = one_axis(c, "axis", c.arg(0));
  return ops::concat({c.arg(0), c.arg(1)}, axis);
}

// Σ of every element of a times b's (both flattened, batch and all): one number.
Output vdot(C c) {
  return ops::reduce_sum(ops::mul(ops::reshape(c.arg(0), {-1}), ops::reshape(c.arg(1), {-1})), {0}, false);
}

// The cross product of 3-vectors along the last axes: (a1 b2 − a2 b1, a2 b0 − a0 b2,
// a0 b1 − a1 b0). Other axes, and 2-vectors, are refused.
Output cross(C c) {
  for (const char* key : {"axisa", "axisb", "axisc"}) {
    if (c.has(key) && static_cast<std::int64_t>(c.number(key)) != -1) refuse(c, key, "only -1 is");
  }
  if (c.has("axis")) refuse(c, "axis", "only None (the last axes) is");
  const Output a = c.arg(0), b = c.arg(1);
  const int la = rank_of(a) - 1, lb = rank_of(b) - 1;
  if (known_size(c, "axisa", a, la) != 3 || known_size(c, "axisb", b, lb) != 3)
    refuse(c, "axisa", "3-vectors along the last axes are");
  auto part = [](const Output& x, int axis, std::int64_t i) { return slice(x, axis, i, i + 1); };
  auto term = [&](std::int64_t i, std::int64_t j) {
    return ops::sub(ops::mul(part(a, la, i), part(b, lb, j)), ops::mul(part(a, la, j), part(b, lb, i)));
  };
  const Output c0 = term(1, 2), c1 = term(2, 0), c2 = term(0, 1);
  return ops::concat({c0, c1, c2}, rank_of(c0) - 1);
}

}  // namespace

const std::map<std::string, OpFn>& nn_ops() {
  static const std::map<std::string, OpFn> t = {
      {"RMSNorm", rms_normalization},
      {"LayerNorm", layer_normalization},
      {"BatchNorm", batch_normalization},
      {"BinaryCrossentropy", binary_crossentropy},
      {"CategoricalCrossentropy", categorical_crossentropy},
      {"SparseCategoricalCrossentropy", sparse_categorical_crossentropy},
      {"InTopK", in_top_k},
      {"Select", select},
      {"Average", average},
      {"Append", append},
      {"Vdot", vdot},
      {"Cross", cross},
  };
  return t;
}

}  // namespace strata::layers::op_detail
