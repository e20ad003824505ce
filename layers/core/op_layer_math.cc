// keras.ops elementwise math and tests beyond op_layer_ops.cc's (issue #38), each in the formula
// Keras's TensorFlow backend computes (keras/src/backend/tensorflow/numpy.py), composed from
// graph ops so that every device that runs those runs these, with their gradients. Bool
// results are 0/1 floats as elsewhere in OpLayer.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/ops.h"
#include "core/ops/arctan2.h"
#include "core/ops/array_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

constexpr float kPi = std::numbers::pi_v<float>;

Output as_float32(Output x) { return x.dtype() == DType::float32 ? x : ops::cast(x, DType::float32); }
Output both(Output a, Output b) { return ops::mul(a, b); }  // of 0/1 floats
Output either(Output a, Output b) { return ops::maximum(a, b); }
Output negation(Output a) { return ops::sub(1.0f, a); }

// b where b != 0, else 1: a denominator whose unused quotients (and their gradients) stay finite.
Output nonzero_or_one(C c, Output b) { return ops::where(ops::equal(b, scalar(c, 0.f)), ops::ones_like(b), b); }

// tf.math.divide_no_nan: a / b, 0 where b is 0 (its gradients 0 there too).
Output divide_no_nan(C c, Output a, Output b) {
  const Output q = ops::div(a, nonzero_or_one(c, b));
  return ops::where(ops::equal(b, scalar(c, 0.f)), ops::zeros_like(q), q);
}

// tf.math.atan2's value and gradients (core/ops/arctan2.h).
Output arctan2(C c) { return ops::arctan2(c.arg(0), c.arg(1)); }

// max(|a|, |b|) · sqrt(1 + divide_no_nan(min, max)²), as Keras's hypot (no overflow).
Output hypot(C c) {
  const Output a = ops::abs(c.arg(0)), b = ops::abs(c.arg(1));
  const Output hi = ops::maximum(a, b), lo = ops::minimum(a, b);
  return ops::mul(hi, ops::sqrt(ops::add(ops::square(divide_no_nan(c, lo, hi)), 1.0f)));
}

// sign(x1) · floormod(|x1|, |x2|): the remainder takes the dividend's sign (C's fmod).
Output fmod(C c) {
  const Output a = ops::abs(c.arg(0)), b = ops::abs(c.arg(1));
  return ops::mul(ops::sign(c.arg(0)), ops::sub(a, ops::mul(ops::floor(ops::div(a, b)), b)));
}

// maximum / minimum, except that a NaN on one side gives the other side.
Output nan_ignoring(C c, bool largest) {
  const Output a = c.arg(0), b = c.arg(1);
  const Output m = largest ? ops::maximum(a, b) : ops::minimum(a, b);
  const Output nan_a = is_nan(a), nan_b = is_nan(b);
  const Output r = ops::where(both(nan_a, negation(nan_b)), ops::add(ops::zeros_like(m), b), m);
  return ops::where(both(nan_b, negation(nan_a)), ops::add(ops::zeros_like(m), a), r);
}

Output heaviside(C c) {
  const Output x = c.arg(0), zero = scalar(c, 0.f);
  const Output at_zero = ops::add(ops::zeros_like(x), c.arg(1));
  return ops::where(ops::less(x, zero), ops::zeros_like(at_zero),
                    ops::where(ops::greater(x, zero), ops::ones_like(at_zero), at_zero));
}

// NaN to `nan`, +inf to `posinf`, −inf to `neginf` (float32's largest finite values when None).
Output nan_to_num(C c) {
  const Output x = c.arg(0);
  auto value = [&](const char* key, float fallback) {
    return scalar(c, c.has(key) ? static_cast<float>(c.number(key)) : fallback);
  };
  const float big = std::numeric_limits<float>::max();
  Output y = ops::where(is_nan(x), ops::add(ops::zeros_like(x), value("nan", 0.f)), x);
  y = ops::where(ops::equal(x, scalar(c, kInf)), ops::add(ops::zeros_like(x), value("posinf", big)), y);
  return ops::where(ops::equal(x, scalar(c, -kInf)), ops::add(ops::zeros_like(x), value("neginf", -big)), y);
}

// The sign bit of finite values and infinities: x < 0, or a zero whose reciprocal is −inf
// (−0.0). A NaN's sign bit is not read (false), where Keras reads the bits.
Output signbit(C c) {
  const Output x = c.arg(0), zero = scalar(c, 0.f);
  const Output negative_zero = both(ops::equal(x, zero), ops::less(ops::div(1.0f, x), zero));
  return either(ops::less(x, zero), negative_zero);
}

// sign(x) · |x|^(1/3), as Keras's cbrt (tf.pow of |x|, here exp(log|x| / 3)).
Output cbrt(C c) {
  const Output x = c.arg(0);
  const Output magnitude = ops::exp(ops::div(ops::log(ops::abs(x)), 3.0f));
  return ops::mul(ops::sign(x), magnitude);
}

// sin(πx) / (πx), 1 at 0.
Output sinc(C c) {
  const Output x = c.arg(0);
  const Output zero = ops::equal(x, scalar(c, 0.f));
  const Output pi_x = ops::mul(ops::where(zero, ops::ones_like(x), x), kPi);
  return ops::where(zero, ops::ones_like(x), ops::div(ops::sin(pi_x), pi_x));
}

// max(x1, x2) + log1p(2^−|x1 − x2|) / log 2, and x1 + x2 where the difference is NaN.
Output logaddexp2(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  const auto log2 = std::numbers::ln2_v<float>;
  const Output delta = ops::sub(a, b);
  const Output y = ops::add(ops::maximum(a, b),
                            ops::div(ops::log1p(ops::exp(ops::mul(ops::neg(ops::abs(delta)), log2))), log2));
  return ops::where(is_nan(delta), ops::add(a, b), y);
}

// sparse=True makes Keras's value a tf.SparseTensor (and sparse=False a sparse one dense):
// the same values, which Strata's tensors hold dense either way.
Output convert_to_tensor(C c) {
  if (c.has("ragged") && c.flag("ragged")) refuse(c, "ragged", "Strata's tensors are dense");
  if (!c.has("dtype")) return ops::identity(c.arg(0));
  if (c.text("dtype") == "bool") return ops::not_equal(c.arg(0), scalar(c, 0.f));
  return ops::cast(c.arg(0), dtype_of(c.text("dtype"), c.where));
}

// x where x > threshold, default_value elsewhere.
Output threshold(C c) {
  const Output x = c.arg(0);
  const Output fallback = ops::fill_like(x, static_cast<float>(c.number("default_value")));
  return ops::where(ops::greater(x, scalar(c, static_cast<float>(c.number("threshold")))), x, fallback);
}

// |x1 − x2| <= atol + rtol · |x2| (rtol and atol the call's third and fourth arguments,
// Keras's defaults 1e-5 and 1e-8 when absent); NaNs equal when equal_nan.
Output isclose(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  auto constant = [&](std::size_t i, float fallback) {
    return i < c.args.size() ? c.arg(i) : scalar(c, fallback);
  };
  const Output rtol = constant(2, 1e-5f), atol = constant(3, 1e-8f);
  const Output close = ops::less_equal(ops::abs(ops::sub(a, b)), ops::add(atol, ops::mul(rtol, ops::abs(b))));
  return c.flag("equal_nan") ? either(close, both(is_nan(a), is_nan(b))) : close;
}

// keras.ops.allclose as Keras's TensorFlow backend: one 0/1 float for the whole (broadcast)
// call, 1 where every element is equal, or finite on both sides and |x1 − x2| <= atol +
// rtol · |x2|, or (equal_nan) NaN on both sides. Integers (which Keras compares for equality
// only, as equality is then what the tolerance test gives) compared as float32: exact below
// 2^24.
Output allclose(C c) {
  const Output a = as_float32(c.arg(0)), b = as_float32(c.arg(1));
  const auto rtol = static_cast<float>(c.has("rtol") ? c.number("rtol") : 1e-5);
  const auto atol = static_cast<float>(c.has("atol") ? c.number("atol") : 1e-8);
  auto finite = [&](Output x) { return ops::less(ops::abs(x), scalar(c, kInf)); };
  const Output close = ops::less_equal(ops::abs(ops::sub(a, b)), ops::add(ops::mul(ops::abs(b), rtol), atol));
  Output each = either(both(both(finite(a), finite(b)), close), ops::equal(a, b));
  if (c.flag("equal_nan")) each = either(each, both(is_nan(a), is_nan(b)));
  std::vector<std::int64_t> axes;
  for (int i = 0; i < rank_of(each); ++i) axes.push_back(i);
  return negation(ops::reduce_max(negation(each), axes, false));
}

// keras.ops.normalize along `axis`: order 2 as x · min(rsqrt(Σx²), 1/ε), order 1 as
// x / max(Σ|x|, ε); ε Keras's backend epsilon 1e-7 when None.
Output normalize(C c) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  const double order = c.has("order") ? c.number("order") : 2.0;
  const auto epsilon = static_cast<float>(c.has("epsilon") ? c.number("epsilon") : 1e-7);
  if (order == 2.0) {
    const Output inverse_norm = ops::div(1.0f, ops::sqrt(ops::reduce_sum(ops::square(x), {axis}, true)));
    return ops::mul(x, ops::minimum(inverse_norm, 1.0f / epsilon));
  }
  if (order == 1.0) return ops::div(x, ops::maximum(ops::reduce_sum(ops::abs(x), {axis}, true), epsilon));
  refuse(c, "order", "orders 1 and 2 are");
}

Output ptp(C c) {
  return reduce(c, [](Output x, auto a, bool k) {
    return ops::add(ops::reduce_max(x, a, k), ops::reduce_max(ops::neg(x), a, k));
  });
}

// keras.ops.vander of a 1-D x (a functional model's batch): columns x^(N−1) .. x^0, or
// x^0 .. x^(N−1) when increasing, each power a product of x's (TensorFlow's pow of an integer
// exponent to float32's rounding); integer x computed in float32 and cast back, as Keras's.
// N=None would make N the batch's size: refused.
Output vander(C c) {
  const Output x = c.arg(0);
  if (rank_of(x) != 1) throw ValueError(c.where + ": x must be a 1-D tensor, got " + x.shape().to_string());
  if (!c.has("N")) refuse(c, "N", "N=None makes the result's width the batch's size; give N");
  const double n_value = c.number("N");
  const auto n = static_cast<std::int64_t>(n_value);
  if (n < 1 || static_cast<double>(n) != n_value)
    refuse(c, "N", "a positive integer is needed (N=0's empty result is not)");
  const Output v = x.dtype() == DType::float32 ? x : ops::cast(x, DType::float32);
  std::vector<Output> columns;
  Output power = ops::ones_like(v);
  for (std::int64_t k = 0; k < n; ++k) {
    columns.push_back(expand_dims(power, -1, c.where));
    power = k == 0 ? v : ops::mul(power, v);
  }
  if (!c.flag("increasing")) std::reverse(columns.begin(), columns.end());
  const Output y = columns.size() == 1 ? columns[0] : ops::concat(columns, 1);
  return x.dtype() == DType::float32 ? y : ops::cast(y, x.dtype());
}

}  // namespace

const std::map<std::string, OpFn>& math_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Arctan2", arctan2},
      {"Hypot", hypot},
      {"Fmod", fmod},
      {"Fmax", [](C c) { return nan_ignoring(c, true); }},
      {"Fmin", [](C c) { return nan_ignoring(c, false); }},
      {"Heaviside", heaviside},
      {"DivideNoNan", [](C c) { return divide_no_nan(c, c.arg(0), c.arg(1)); }},
      {"NanToNum", nan_to_num},
      {"Isnan", [](C c) { return is_nan(c.arg(0)); }},
      {"Isinf", [](C c) { return ops::equal(ops::abs(c.arg(0)), scalar(c, kInf)); }},
      {"Isfinite", [](C c) { return ops::less(ops::abs(c.arg(0)), scalar(c, kInf)); }},  // NaN: false
      {"Isneginf", [](C c) { return ops::equal(c.arg(0), scalar(c, -kInf)); }},
      {"Isposinf", [](C c) { return ops::equal(c.arg(0), scalar(c, kInf)); }},
      {"Signbit", signbit},
      {"Cbrt", cbrt},
      {"Erfc", [](C c) { return ops::sub(1.0f, ops::erf(c.arg(0))); }},
      {"Sinc", sinc},
      {"Fabs", [](C c) { return ops::abs(c.arg(0)); }},
      {"Logaddexp2", logaddexp2},
      {"Copy", [](C c) { return ops::identity(c.arg(0)); }},
      {"ConvertToTensor", convert_to_tensor},
      {"Threshold", threshold},
      {"Isclose", isclose},
      {"AllClose", allclose},
      {"Isreal", [](C c) { return ops::ones_like(c.arg(0)); }},  // Strata's tensors are real
      {"Array", convert_to_tensor},  // keras.ops.array is convert_to_tensor(x, dtype)
      {"Normalize", normalize},
      {"Ptp", ptp},
      {"Vander", vander},
  };
  return t;
}

}  // namespace strata::layers::op_detail
