// keras.ops special functions, binning, membership and casts (issue #38): erfinv, i0, ldexp,
// nextafter, digitize, isin and saturate_cast, each composed from graph ops in what Keras's
// TensorFlow backend computes, so that every device that runs those runs these, with their
// gradients. Bool results are 0/1 floats as elsewhere in OpLayer; integer inputs are compared
// and scaled as float32, exact below 2^24.
// And the integer operations (bitwise_and, or, xor, not/invert, the shifts, gcd, lcm), which
// compute in int32 or int64 with the integer ops (core/ops/integer_ops.h), in the dtype
// Keras's TensorFlow backend promotes the operands to, and have no gradient, as Keras's; and view,
// x's bytes as another dtype (the bitcast op).
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "core/ops.h"
#include "core/ops/integer_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output as_float(Output x) { return ops::cast(x, DType::float32); }

// Giles's single-precision approximation ("Approximating the erfinv function", 2010), then one
// Newton step on erf(y) = x: the step takes the approximation to float32's rounding, and its
// derivative is erfinv's, √π/2 · exp(y²), to the same order (the approximation's own slope
// enters multiplied by erf(y) − x). ±1 give ±inf, as tf.math.erfinv.
Output erfinv(C c) {
  const Output x = as_float(c.arg(0));
  const Output w = ops::neg(ops::log(ops::mul(ops::sub(1.0f, x), ops::add(x, 1.0f))));
  auto polynomial = [](Output t, std::initializer_list<float> coefficients) {
    Output p;
    for (float k : coefficients) p = p.valid() ? ops::add(ops::mul(p, t), k) : ops::add(ops::zeros_like(t), k);
    return p;
  };
  const Output central = polynomial(ops::sub(w, 2.5f), {2.81022636e-08f, 3.43273939e-07f, -3.5233877e-06f,
                                                        -4.39150654e-06f, 0.00021858087f, -0.00125372503f,
                                                        -0.00417768164f, 0.246640727f, 1.50140941f});
  const Output tail_w = ops::maximum(w, 5.0f);  // the tail's branch on its own domain only (finite gradients)
  const Output tail = polynomial(ops::sub(ops::sqrt(tail_w), 3.0f),
                                 {-0.000200214257f, 0.000100950558f, 0.00134934322f, -0.00367342844f,
                                  0.00573950773f, -0.0076224613f, 0.00943887047f, 1.00167406f, 2.83297682f});
  const Output in_center = ops::less(w, ops::constant(c.graph, 5.0f));
  const Output edge = ops::equal(ops::abs(x), ops::constant(c.graph, 1.0f));
  const Output inside = ops::where(edge, ops::zeros_like(x), x);  // ±1 left out of the step, inf put back after
  const Output y0 = ops::mul(ops::where(in_center, central, tail), inside);
  const float slope = 2.0f / std::sqrt(std::numbers::pi_v<float>);
  const Output step = ops::div(ops::sub(ops::erf(y0), inside), ops::mul(ops::exp(ops::neg(ops::square(y0))), slope));
  const Output y = ops::sub(y0, step);
  const float inf = std::numeric_limits<float>::infinity();  // constants: no gradient through the unused branch
  const Output infinite = ops::where(ops::greater(x, ops::constant(c.graph, 0.f)), ops::fill_like(x, inf),
                                     ops::fill_like(x, -inf));
  return ops::where(edge, infinite, y);
}

// The modified Bessel function of the first kind, order 0: its power series Σ (x²/4)^k / (k!)²
// below |x| = 12 (the terms all positive: float32's rounding, 40 terms), and above it the
// asymptotic e^|x| / √(2π|x|) · Σ ((2k−1)!!)² / (k! (8|x|)^k) (10 terms: 1e-9 at 12), e^|x|
// folded into the square root's logarithm so that it overflows only where I0 does. Each branch
// reads its own domain (where picks the other's value), so both branches' gradients stay finite.
Output i0(C c) {
  const Output x = as_float(c.arg(0));
  const float limit = 12.0f;
  const Output magnitude = ops::abs(x);
  const Output small = ops::less_equal(magnitude, ops::constant(c.graph, limit));
  const Output xs = ops::where(small, x, ops::zeros_like(x));
  const Output quarter_square = ops::mul(ops::square(xs), 0.25f);
  Output series = ops::ones_like(x);  // 1 + t/1²(1 + t/2²(1 + ...)), from the inside out
  for (int k = 40; k >= 1; --k)
    series = ops::add(ops::mul(ops::mul(series, quarter_square), 1.0f / static_cast<float>(k * k)), 1.0f);
  const Output xl = ops::where(small, ops::fill_like(x, limit), magnitude);
  const Output inverse_8x = ops::div(0.125f, xl);
  Output asymptotic = ops::ones_like(x);
  for (int k = 10; k >= 1; --k) {
    const auto odd = static_cast<float>(2 * k - 1);
    asymptotic = ops::add(ops::mul(ops::mul(asymptotic, inverse_8x), odd * odd / static_cast<float>(k)), 1.0f);
  }
  const float log_2pi = std::log(2.0f * std::numbers::pi_v<float>);
  const Output scale = ops::exp(ops::sub(xl, ops::mul(ops::add(ops::log(xl), log_2pi), 0.5f)));
  return ops::where(small, series, ops::mul(scale, asymptotic));
}

// x1 · 2^x2 for integer x2 (2^x2 as exp(x2 ln 2): within float32's rounding of TensorFlow's
// exact power), x1 itself where it is 0 or infinite.
Output ldexp(C c) {
  if (c.arg(1).dtype() == DType::float32)
    throw ValueError(c.where + ": the exponent must be of an integer type, as Keras's ldexp requires");
  const Output x = as_float(c.arg(0));
  const Output power = ops::exp(ops::mul(as_float(c.arg(1)), std::numbers::ln2_v<float>));
  const Output infinity = ops::constant(c.graph, std::numeric_limits<float>::infinity());
  const Output kept = ops::maximum(ops::equal(x, ops::constant(c.graph, 0.f)), ops::equal(ops::abs(x), infinity));
  const Output y = ops::mul(x, power);
  return ops::where(kept, ops::add(x, ops::zeros_like(y)), y);
}

// Keras's TensorFlow nextafter takes float64's next value after x1 towards x2 and casts it back
// to float32, which rounds it to x1: the result is x1, x2 where they are equal (as nextafter
// returns its target), NaN where either is NaN. Its gradient is 1 to x1, as TensorFlow's.
Output nextafter(C c) {
  const Output a = as_float(c.arg(0)), b = as_float(c.arg(1));
  const Output y = ops::add(a, ops::zeros_like(b));
  const Output nan_b = ops::not_equal(b, b);
  const Output same = ops::equal(a, b);
  return ops::where(nan_b, ops::add(ops::zeros_like(y), b), ops::where(same, ops::add(ops::zeros_like(y), b), y));
}

// tf.raw_ops.Bucketize: the number of bins at or below x (bins increasing, as Keras requires),
// int32. Counted as the bins x is not below, as Bucketize's upper_bound counts them: a NaN
// is below none, so it lands past the last bin (len(bins)), not in bin 0.
Output digitize(C c) {
  const Output x = as_float(c.arg(0)), bins = as_float(c.arg(1));
  if (bins.shape().rank() != 1) throw ValueError(c.where + ": bins must be one list of numbers");
  const Output not_below = ops::sub(1.0f, ops::less(expand_dims(x, -1, c.where), bins));
  return ops::cast(ops::reduce_sum(not_below, {x.shape().rank()}, false), DType::int32);
}

// Whether each element of x1 is among x2's (flattened); invert negates. assume_unique changes
// nothing computed here.
Output isin(C c) {
  const Output x = as_float(c.arg(0));
  // All of x2's values (the batch's too, when x2 has one) against each element of x1.
  const auto rank = static_cast<std::int64_t>(x.shape().rank());
  std::vector<std::int64_t> row(static_cast<std::size_t>(rank), 1);
  row.push_back(-1);
  const Output values = ops::reshape(as_float(c.arg(1)), row);
  const Output found = ops::reduce_max(ops::equal(expand_dims(x, -1, c.where), values), {rank}, false);
  return c.flag("invert") ? ops::sub(1.0f, found) : found;
}

// Keras's _saturate_cast as its TensorFlow backend computes it on the CPU: clipped to
// [−2^k, 2^k] (the type's upper limit rounds up to 2^k in float32: Keras's nudge below it
// compares in float32 and does not fire), then cast, truncating; 2^k and NaN, which the cast
// overflows, give the type's lowest value, as x86's conversion (and TensorFlow's) does.
// float32 clips infinities to its largest finite values.
Output saturate_cast(C c) {
  const std::string name = c.text("dtype");
  const Output x = c.arg(0);
  if (x.dtype() != DType::float32)
    throw NotImplementedError(c.where + ": saturate_cast of a " + to_string(x.dtype()) + " input is not supported " +
                              "(of float32 inputs it is)");
  const float big = std::numeric_limits<float>::max();
  if (name == "float32") return ops::clip(x, -big, big);
  if (name != "int32" && name != "int64") refuse(c, "dtype", "float32, int32 and int64 are supported");
  const float limit = name == "int32" ? 2147483648.0f : 9223372036854775808.0f;
  const Output overflows = ops::maximum(ops::greater_equal(x, ops::constant(c.graph, limit)), ops::not_equal(x, x));
  const Output kept = ops::where(overflows, ops::fill_like(x, -limit), ops::clip(x, -limit, limit));
  return ops::cast(kept, name == "int32" ? DType::int32 : DType::int64);
}


// --- integer operations ---------------------------------------------------------------------

bool is_integer(DType dtype) { return dtype == DType::int32 || dtype == DType::int64; }

// One operand of an integer operation: a tensor of the model, or a constant (a Python int, a
// NumPy array), with the dtype Keras's TensorFlow backend gives it.
struct IntegerOperand {
  Output tensor;                      // a tensor of the model, else invalid
  const OpArgument* constant = nullptr;  // a Python int or a NumPy array
  DType dtype = DType::int32;
};

// Argument i of an integer operation `fn` (keras.ops' name). Keras's TensorFlow backend fails
// on float operands (tf.bitwise takes integers only, gcd and lcm raise): they are refused here,
// when the model is built. A Python int is int32 (int64 beyond int32's range) as
// tf.convert_to_tensor makes it; a NumPy array keeps its dtype; other integer widths (int8,
// uint8, ...) are not Strata dtypes.
IntegerOperand integer_operand(C c, std::size_t i, const std::string& fn) {
  const OpArgument& a = c.arguments.at(i);
  IntegerOperand operand;
  auto whole = [&](double v) {
    if (v != std::floor(v) || std::fabs(v) >= 9223372036854775808.0)
      throw ValueError(c.where + ": " + fn + " takes integers; argument " + std::to_string(i) + " holds " +
                       std::to_string(v) + " (Keras's TensorFlow backend fails on it too)");
  };
  switch (a.kind) {
    case OpArgument::Kind::tensor: {
      operand.tensor = c.arg(i);
      operand.dtype = operand.tensor.dtype();
      if (!is_integer(operand.dtype))
        throw ValueError(c.where + ": " + fn + " takes integers; input " + std::to_string(i) + " has dtype " +
                         to_string(operand.dtype) + " (Keras's TensorFlow backend fails on it too: cast it first)");
      return operand;
    }
    case OpArgument::Kind::number: {
      whole(a.number);
      operand.constant = &a;
      const bool fits = a.number >= -2147483648.0 && a.number <= 2147483647.0;
      operand.dtype = fits ? DType::int32 : DType::int64;
      return operand;
    }
    case OpArgument::Kind::array:
      if (a.dtype != "int32" && a.dtype != "int64")
        throw ValueError(c.where + ": " + fn + " takes int32 or int64 arrays; argument " + std::to_string(i) +
                         " is a NumPy array of dtype " + a.dtype);
      for (double v : a.values) whole(v);
      operand.constant = &a;
      operand.dtype = parse_dtype(a.dtype);
      return operand;
    default:
      throw ValueError(c.where + ": " + fn + " expects a tensor or an integer as argument " + std::to_string(i));
  }
}

// The operand as a tensor of `dtype`: a tensor cast (int32 to int64), a constant as an integer
// tensor of the graph (exactly, where float32 would round integers above 2^24).
Output integer_value(C c, const IntegerOperand& operand, DType dtype, std::size_t i) {
  if (operand.tensor.valid()) return ops::cast(operand.tensor, dtype);
  const OpArgument& a = *operand.constant;
  const std::vector<double> values = a.kind == OpArgument::Kind::number ? std::vector<double>{a.number} : a.values;
  const Shape shape = a.kind == OpArgument::Kind::number ? Shape{} : Shape(a.shape);
  Tensor t = dtype == DType::int32 ? Tensor::from_vector(shape, std::vector<std::int32_t>(values.begin(), values.end()))
                                   : Tensor::from_vector(shape, std::vector<std::int64_t>(values.begin(), values.end()));
  return c.graph.variable(Variable(c.where + "/integer_" + std::to_string(i), std::move(t), false));
}

// x1, x2 of an integer operation in Keras's result dtype: int64 when either is int64, else
// int32. For the shifts a Python int takes x1's dtype instead (tf.bitwise converts it to x1's,
// failing where it does not fit).
std::pair<Output, Output> integer_operands(C c, const std::string& fn, bool shift) {
  IntegerOperand x1 = integer_operand(c, 0, fn), x2 = integer_operand(c, 1, fn);
  if (shift && x2.constant && x2.constant->kind == OpArgument::Kind::number) {
    if (x1.dtype == DType::int32 && x2.dtype == DType::int64)
      throw ValueError(c.where + ": " + fn + " by " + std::to_string(x2.constant->number) +
                       ", which int32 does not hold (Keras's TensorFlow backend fails on it too)");
    x2.dtype = x1.dtype;
  }
  const DType dtype = x1.dtype == DType::int64 || x2.dtype == DType::int64 ? DType::int64 : DType::int32;
  return {integer_value(c, x1, dtype, 0), integer_value(c, x2, dtype, 1)};
}

OpFn integer_binary(std::string fn, Output (*op)(Output, Output), bool shift = false) {
  return [fn = std::move(fn), op, shift](C c) {
    const auto [x1, x2] = integer_operands(c, fn, shift);
    return op(x1, x2);
  };
}

Output bitwise_invert(C c) {
  const IntegerOperand x = integer_operand(c, 0, "bitwise_invert");
  return ops::bitwise_not(integer_value(c, x, x.dtype, 0));
}

// keras.ops.view: x's bytes as `dtype` (None: x's own), tf.bitcast as Keras's TensorFlow backend
// calls it: the shape kept between types of one size, the last axis doubled from int64 to a
// 4-byte type, halved from one to int64. Strata's dtypes are float32, int32 and int64: other
// dtypes (float16, float64, int8, ...) are refused by name, as is a change of size along the
// batch axis (a vector's only axis), whose size is unknown when the model is built.
Output view(C c) {
  const Output x = c.arg(0);
  const std::string name = c.has("dtype") ? c.text("dtype") : to_string(x.dtype());
  if (name != "float32" && name != "int32" && name != "int64")
    refuse(c, "dtype", "a view as float32, int32 or int64 is");
  const DType to = parse_dtype(name);
  if (size_of(to) != size_of(x.dtype()) && rank_of(x) < 2)
    refuse(c, "dtype", "a view as a type of another size changes the last axis, here the batch axis of " +
                           x.shape().to_string());
  return ops::bitcast(x, to);
}

}  // namespace

const std::map<std::string, OpFn>& special_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Erfinv", erfinv},       {"I0", i0},         {"Ldexp", ldexp},
      {"Nextafter", nextafter}, {"Digitize", digitize}, {"IsIn", isin},
      {"SaturateCast", saturate_cast},
      {"BitwiseAnd", integer_binary("bitwise_and", ops::bitwise_and)},
      {"BitwiseOr", integer_binary("bitwise_or", ops::bitwise_or)},
      {"BitwiseXor", integer_binary("bitwise_xor", ops::bitwise_xor)},
      {"BitwiseNot", bitwise_invert},
      {"BitwiseInvert", bitwise_invert},
      {"BitwiseLeftShift", integer_binary("bitwise_left_shift", ops::left_shift, true)},
      {"LeftShift", integer_binary("left_shift", ops::left_shift, true)},
      {"BitwiseRightShift", integer_binary("bitwise_right_shift", ops::right_shift, true)},
      {"RightShift", integer_binary("right_shift", ops::right_shift, true)},
      {"Gcd", integer_binary("gcd", ops::gcd)},
      {"Lcm", integer_binary("lcm", ops::lcm)},
      {"View", view},
  };
  return t;
}

}  // namespace strata::layers::op_detail
