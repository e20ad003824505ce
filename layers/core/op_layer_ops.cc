// keras.ops operations beyond arithmetic and shapes (issue #38): elementwise math,
// reductions, logic, axis moves and scans, and the nn functions, each in the formula Keras's
// TensorFlow backend computes (so that outputs and gradients match it), composed from graph
// ops. Bool results are 0/1 floats as elsewhere in OpLayer; argmax and argmin int32 as Keras.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/scan_ops.h"
#include "layers/activations.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output nonzero(Output x) { return ops::not_equal(x, ops::constant(*x.graph, 0.0f)); }

std::string shown(const ConfigValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return std::to_string(*d);
  if (const auto* l = std::get_if<std::vector<std::int64_t>>(&v)) return Shape(*l).to_string();
  if (const auto* t = std::get_if<std::string>(&v)) return "'" + *t + "'";
  if (const auto* b = std::get_if<bool>(&v)) return *b ? "True" : "False";
  if (std::holds_alternative<std::monostate>(v)) return "None";
  return "the value given";
}

}  // namespace

void refuse(C c, const std::string& key, const std::string& why) {
  const auto it = c.attrs.find(key);
  throw NotImplementedError(c.where + ": " + key + "=" + (it == c.attrs.end() ? "None" : shown(it->second)) +
                            " is not supported (" + why + ")");
}

int one_axis(C c, const std::string& key, const Output& x) {
  const auto axes = c.axes(key);
  if (!axes) refuse(c, key, "None flattens the batch axis into the result");
  if (axes->size() != 1) refuse(c, key, "one axis is");
  return static_cast<int>(normalize_axis(axes->front(), x.shape().rank(), c.where));
}

std::int64_t known_size(C c, const std::string& key, const Output& x, int axis) {
  const std::int64_t n = x.shape().dims()[static_cast<std::size_t>(axis)];
  if (axis == 0 || n == kUnknownDim) refuse(c, key, "the axis must be one of known size after the batch axis");
  return n;
}

Output slice(Output x, int axis, std::int64_t begin, std::int64_t end) {
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  std::vector<std::int64_t> before(rank, 0), after(rank, 0);
  before[static_cast<std::size_t>(axis)] = begin;
  after[static_cast<std::size_t>(axis)] = x.shape().dims()[static_cast<std::size_t>(axis)] - end;
  return ops::crop(x, before, after);
}

Output drop_axis(Output x, int axis, const std::string& where) {
  std::vector<std::int64_t> dims = reshape_target(x.shape(), where);
  dims.erase(dims.begin() + axis);
  return ops::reshape(x, dims);
}

Output with_dtype(C c, Output y) {
  if (!c.has("dtype")) return y;
  const DType d = dtype_of(c.text("dtype"), c.where);
  return d == DType::float32 ? y : ops::cast(y, d);
}

// Keras's prod over the call's axes: the last of a running product along each axis in
// turn (its gradient is then exact where x has zeros, as TensorFlow's reduce_prod's).
Output product_over(C c, Output x) {
  std::vector<std::int64_t> axes;
  if (auto a = c.axes("axis")) {
    for (auto v : *a) axes.push_back(normalize_axis(v, x.shape().rank(), c.where));
  } else {
    for (int i = 0; i < x.shape().rank(); ++i) axes.push_back(i);
  }
  std::sort(axes.begin(), axes.end());
  for (auto a : axes) {
    const auto axis = static_cast<int>(a);
    const std::int64_t n = known_size(c, "axis", x, axis);
    x = slice(ops::cumprod(x, axis), axis, n - 1, n);
  }
  if (!c.flag("keepdims")) {
    for (auto it = axes.rbegin(); it != axes.rend(); ++it) x = drop_axis(x, static_cast<int>(*it), c.where);
  }
  return with_dtype(c, x);
}

namespace {

Output prod(C c) { return product_over(c, c.arg(0)); }

Output variance(C c) {
  return reduce(c, [](Output x, auto a, bool k) {
    return ops::reduce_mean(ops::square(ops::sub(x, ops::reduce_mean(x, a, true))), a, k);
  });
}

Output arg_extreme(C c, bool largest) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  Output i = ops::cast(ops::argmax(largest ? x : ops::neg(x), axis), DType::int32);
  return c.flag("keepdims") ? expand_dims(i, axis, c.where) : i;
}

// np.tile: whole copies along each axis; repeats shorter than the rank count from the end.
Output tile(C c) {
  Output x = c.arg(0);
  const auto reps = c.axes("repeats");
  if (!reps) refuse(c, "repeats", "a list of counts is needed");
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  if (reps->size() > rank) refuse(c, "repeats", "more counts than axes would add axes before the batch");
  for (std::size_t k = 0; k < reps->size(); ++k) {
    const std::int64_t r = (*reps)[k];
    const auto axis = static_cast<int>(rank - reps->size() + k);
    if (r == 1) continue;
    if (r < 1 || axis == 0) refuse(c, "repeats", "counts of 1 or more, and 1 for the batch axis");
    x = ops::concat(std::vector<Output>(static_cast<std::size_t>(r), x), axis);
  }
  return x;
}

// np.repeat: each element `repeats` times in a row along the axis.
Output repeat(C c) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  known_size(c, "axis", x, axis);
  const auto reps = c.axes("repeats");
  if (!reps || reps->size() != 1 || reps->front() < 1) refuse(c, "repeats", "one count of 1 or more is");
  const Output e = ops::expand_dims(x, axis + 1);
  return ops::merge_axes(ops::concat(std::vector<Output>(static_cast<std::size_t>(reps->front()), e), axis + 1),
                         axis, 2);
}

Output flip(C c) {
  Output x = c.arg(0);
  if (!c.has("axis")) {  // every axis, the batch's too: reverse reads the run's sizes
    for (int a = 0; a < x.shape().rank(); ++a) x = ops::reverse(x, a);
    return x;
  }
  const std::vector<std::int64_t> axes = *c.axes("axis");  // held: the loop outlives the optional
  for (auto a : axes) x = ops::reverse(x, static_cast<int>(normalize_axis(a, x.shape().rank(), c.where)));
  return x;
}

// np.roll: the last `shift` elements (mod the size) move to the front.
Output roll(C c) {
  Output x = c.arg(0);
  const auto axes = c.axes("axis");
  if (!axes) refuse(c, "axis", "None rolls the flattened input, batch included");
  const auto shifts = c.axes("shift");
  if (!shifts || (shifts->size() != axes->size() && shifts->size() != 1))
    refuse(c, "shift", "one shift, or one per axis, is needed");
  for (std::size_t k = 0; k < axes->size(); ++k) {
    const auto axis = static_cast<int>(normalize_axis((*axes)[k], x.shape().rank(), c.where));
    const std::int64_t n = known_size(c, "axis", x, axis);
    const std::int64_t s = (((shifts->size() == 1 ? shifts->front() : (*shifts)[k]) % n) + n) % n;
    if (s != 0) x = ops::concat({slice(x, axis, n - s, n), slice(x, axis, 0, n - s)}, axis);
  }
  return x;
}

Output moveaxis(C c) {
  const Output x = c.arg(0);
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  const auto from = c.axes("source"), to = c.axes("destination");
  if (!from || !to || from->size() != to->size()) refuse(c, "destination", "as many axes as 'source' are needed");
  std::vector<std::int64_t> src, dst, perm(rank, -1), rest;
  for (std::size_t k = 0; k < from->size(); ++k) {
    src.push_back(normalize_axis((*from)[k], rank, c.where));
    dst.push_back(normalize_axis((*to)[k], rank, c.where));
    perm[static_cast<std::size_t>(dst.back())] = src.back();
  }
  for (std::size_t a = 0; a < rank; ++a)
    if (std::find(src.begin(), src.end(), static_cast<std::int64_t>(a)) == src.end()) rest.push_back(static_cast<std::int64_t>(a));
  for (std::size_t a = 0, r = 0; a < rank; ++a)
    if (perm[a] < 0) perm[a] = rest.at(r++);
  return ops::transpose(x, perm);
}

Output swapaxes(C c) {
  const Output x = c.arg(0);
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  std::vector<std::int64_t> perm;
  for (std::size_t a = 0; a < rank; ++a) perm.push_back(static_cast<std::int64_t>(a));
  const auto a1 = static_cast<std::size_t>(normalize_axis(static_cast<std::int64_t>(c.number("axis1")), rank, c.where));
  const auto a2 = static_cast<std::size_t>(normalize_axis(static_cast<std::int64_t>(c.number("axis2")), rank, c.where));
  std::swap(perm[a1], perm[a2]);
  return ops::transpose(x, perm);
}

// np.take with constant indices (a NumPy array in the call): a crop per index, joined.
Output take(C c) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  const std::int64_t n = known_size(c, "axis", x, axis);
  const OpArgument& indices = c.arguments.at(1);
  if (indices.kind != OpArgument::Kind::array || indices.shape.size() > 1) {
    throw NotImplementedError(c.where + ": indices must be a constant integer or 1-D array (a tensor or a " +
                              std::to_string(indices.shape.size()) + "-D array is not supported)");
  }
  std::vector<Output> picked;
  for (double v : indices.values) {
    const auto i = static_cast<std::int64_t>(v);
    if (i < -n || i >= n)
      throw ValueError(c.where + ": index " + std::to_string(i) + " is out of range for axis " +
                       std::to_string(axis) + " of size " + std::to_string(n));
    const std::int64_t at = i < 0 ? i + n : i;
    picked.push_back(slice(x, axis, at, at + 1));
  }
  if (picked.empty()) refuse(c, "indices", "an empty list of indices");
  const Output y = ops::concat(picked, axis);
  return indices.shape.empty() ? drop_axis(y, axis, c.where) : y;
}

Output scan(C c, bool product) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  return with_dtype(c, product ? ops::cumprod(x, axis) : ops::cumsum(x, axis));
}

// max(x1, x2) + log1p(exp(-|x1 - x2|)), TensorFlow's logaddexp.
Output logaddexp(C c) {
  const Output a = c.arg(0), b = c.arg(1);
  return ops::add(ops::maximum(a, b), ops::log1p(ops::exp(ops::neg(ops::abs(ops::sub(a, b))))));
}

// log(sum(exp(x - m))) + m with m = max(x) held constant, as tf.math.reduce_logsumexp.
Output logsumexp(C c) {
  return reduce(c, [](Output x, auto a, bool k) {
    const Output m = ops::stop_gradient(ops::reduce_max(x, a, true));
    const Output sum = ops::reduce_sum(ops::exp(ops::sub(x, m)), a, k);
    return ops::add(ops::log(sum), k ? m : ops::stop_gradient(ops::reduce_max(x, a, false)));
  });
}

Output unary_round(C c) {
  if (c.has("decimals") && c.number("decimals") != 0) refuse(c, "decimals", "only 0 is");
  return ops::round(c.arg(0));
}

Output glu(C c) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  if (axis != x.shape().rank() - 1) refuse(c, "axis", "only the last axis is");
  return activations::glu(x);
}

Output log_softmax(C c) {
  const Output x = c.arg(0);
  return ops::log_softmax(x, one_axis(c, "axis", x));
}

Output sparsemax(C c) {
  const Output x = c.arg(0);
  return ops::sparsemax(x, one_axis(c, "axis", x));
}

// x − t above t, x + t below −t, 0 between: tf.where's branches.
Output soft_shrink(C c) {
  const Output x = c.arg(0);
  const auto t = static_cast<float>(c.has("threshold") ? c.number("threshold") : 0.5);
  Graph& g = *x.graph;
  return ops::add(ops::mul(ops::sub(x, t), ops::greater(x, ops::constant(g, t))),
                  ops::mul(ops::add(x, t), ops::less(x, ops::constant(g, -t))));
}

Output activation(const char* name, C c) { return activations::apply(name, c.arg(0)); }

}  // namespace

const std::map<std::string, OpFn>& more_ops() {
  const auto log_of_2 = static_cast<float>(std::numbers::ln2);
  const auto log_of_10 = static_cast<float>(std::numbers::ln10);
  static const std::map<std::string, OpFn> t = {
      // elementwise math
      {"Sin", [](C c) { return ops::sin(c.arg(0)); }},
      {"Cos", [](C c) { return ops::cos(c.arg(0)); }},
      {"Tan", [](C c) { return ops::tan(c.arg(0)); }},
      {"Arcsin", [](C c) { return ops::asin(c.arg(0)); }},
      {"Arccos", [](C c) { return ops::acos(c.arg(0)); }},
      {"Arctan", [](C c) { return ops::atan(c.arg(0)); }},
      {"Sinh", [](C c) { return ops::sinh(c.arg(0)); }},
      {"Cosh", [](C c) { return ops::cosh(c.arg(0)); }},
      {"Arcsinh", [](C c) { return ops::asinh(c.arg(0)); }},
      {"Arccosh", [](C c) { return ops::acosh(c.arg(0)); }},
      {"Arctanh", [](C c) { return ops::atanh(c.arg(0)); }},
      {"Log1p", [](C c) { return ops::log1p(c.arg(0)); }},
      {"Expm1", [](C c) { return ops::expm1(c.arg(0)); }},
      // log(x) / log(2) and 2^x as exp(x·log 2), as Keras's TensorFlow backend divides.
      {"Log2", [=](C c) { return ops::div(ops::log(c.arg(0)), log_of_2); }},
      {"Log10", [=](C c) { return ops::div(ops::log(c.arg(0)), log_of_10); }},
      {"Exp2", [=](C c) { return ops::exp(ops::mul(c.arg(0), log_of_2)); }},
      {"Floor", [](C c) { return ops::floor(c.arg(0)); }},
      {"Ceil", [](C c) { return ops::ceil(c.arg(0)); }},
      {"Trunc", [](C c) { return ops::trunc(c.arg(0)); }},
      {"Round", unary_round},
      // floormod: the remainder takes the divisor's sign; its gradient w.r.t. the divisor is
      // −floor(x1 / x2), as TensorFlow's.
      {"Mod",
       [](C c) {
         const Output a = c.arg(0), b = c.arg(1);
         return ops::sub(a, ops::mul(ops::floor(ops::div(a, b)), b));
       }},
      {"FloorDivide", [](C c) { return ops::floor(ops::div(c.arg(0), c.arg(1))); }},
      {"Reciprocal", [](C c) { return ops::div(1.0f, c.arg(0)); }},
      {"Rsqrt", [](C c) { return ops::div(1.0f, ops::sqrt(c.arg(0))); }},
      {"Erf", [](C c) { return ops::erf(c.arg(0)); }},
      {"Deg2rad", [](C c) { return ops::mul(c.arg(0), static_cast<float>(std::numbers::pi / 180.0)); }},
      {"Rad2deg", [](C c) { return ops::mul(c.arg(0), static_cast<float>(180.0 / std::numbers::pi)); }},
      {"Logaddexp", logaddexp},
      {"StopGradient", [](C c) { return ops::stop_gradient(c.arg(0)); }},
      // reductions
      {"Prod", prod},
      {"Any", [](C c) { return reduce(c, [](Output x, auto a, bool k) { return ops::reduce_max(nonzero(x), a, k); }); }},
      {"All",
       [](C c) {
         return reduce(c, [](Output x, auto a, bool k) {
           return ops::sub(1.0f, ops::reduce_max(ops::equal(x, ops::constant(*x.graph, 0.0f)), a, k));
         });
       }},
      {"Argmax", [](C c) { return arg_extreme(c, true); }},
      {"Argmin", [](C c) { return arg_extreme(c, false); }},
      {"Var", variance},
      {"Std", [](C c) { return ops::sqrt(variance(c)); }},
      {"Logsumexp", logsumexp},
      {"Amax", [](C c) { return reduce(c, [](Output x, auto a, bool k) { return ops::reduce_max(x, a, k); }); }},
      {"Amin",
       [](C c) {
         return reduce(c, [](Output x, auto a, bool k) { return ops::neg(ops::reduce_max(ops::neg(x), a, k)); });
       }},
      {"CountNonzero",
       [](C c) {
         return ops::cast(reduce(c, [](Output x, auto a, bool) { return ops::reduce_sum(nonzero(x), a, false); }),
                          DType::int32);
       }},
      // logic
      {"LogicalOr", [](C c) { return ops::maximum(nonzero(c.arg(0)), nonzero(c.arg(1))); }},
      {"LogicalXor", [](C c) { return ops::not_equal(nonzero(c.arg(0)), nonzero(c.arg(1))); }},
      {"LogicalNot", [](C c) { return ops::equal(c.arg(0), ops::constant(c.graph, 0.0f)); }},
      // axes
      {"Tile", tile},
      {"Repeat", repeat},
      {"Flip", flip},
      {"Roll", roll},
      {"Moveaxis", moveaxis},
      {"Swapaxes", swapaxes},
      {"Take", take},
      {"Cumsum", [](C c) { return scan(c, false); }},
      {"Cumprod", [](C c) { return scan(c, true); }},
      // nn
      {"Softplus", [](C c) { return activation("softplus", c); }},
      {"Softsign", [](C c) { return activation("softsign", c); }},
      {"Selu", [](C c) { return activation("selu", c); }},
      {"HardSigmoid", [](C c) { return activation("hard_sigmoid", c); }},
      {"HardSilu", [](C c) { return activation("hard_silu", c); }},
      {"LogSigmoid", [](C c) { return activation("log_sigmoid", c); }},
      {"TanhShrink", [](C c) { return activation("tanh_shrink", c); }},
      {"SparsePlus", [](C c) { return activation("sparse_plus", c); }},
      {"SparseSigmoid", [](C c) { return activation("sparse_sigmoid", c); }},
      {"HardTanh", [](C c) { return ops::clip(c.arg(0), -1.0f, 1.0f); }},
      {"LogSoftmax", log_softmax},
      {"Sparsemax", sparsemax},
      {"Glu", glu},
      {"Elu", [](C c) { return activations::elu(c.arg(0), static_cast<float>(c.has("alpha") ? c.number("alpha") : 1.0)); }},
      {"LeakyRelu",
       [](C c) {
         const double slope = c.has("negative_slope") ? c.number("negative_slope") : 0.2;
         return activations::leaky_relu(c.arg(0), static_cast<float>(slope));
       }},
      // max(x, 0) + alpha · expm1(min(x, 0) / alpha), as TensorFlow: both sides pass the
      // gradient at 0.
      {"Celu",
       [](C c) {
         const Output x = c.arg(0);
         const auto alpha = static_cast<float>(c.has("alpha") ? c.number("alpha") : 1.0);
         if (alpha == 0.f) refuse(c, "alpha", "Keras divides by it");
         return ops::add(ops::maximum(x, 0.0f), ops::mul(ops::expm1(ops::div(ops::minimum(x, 0.0f), alpha)), alpha));
       }},
      {"HardShrink",
       [](C c) {
         const Output x = c.arg(0);
         const auto t = static_cast<float>(c.has("threshold") ? c.number("threshold") : 0.5);
         return ops::mul(x, ops::greater(ops::abs(x), ops::constant(c.graph, t)));
       }},
      {"SoftShrink", soft_shrink},
      {"Squareplus",
       [](C c) {
         const Output x = c.arg(0);
         const auto b = static_cast<float>(c.has("b") ? c.number("b") : 4.0);
         if (b < 0.f) refuse(c, "b", "it must be at least 0");
         return ops::mul(ops::add(x, ops::sqrt(ops::add(ops::square(x), b))), 0.5f);
       }},
  };
  return t;
}

}  // namespace strata::layers::op_detail
