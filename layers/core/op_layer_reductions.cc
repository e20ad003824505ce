// keras.ops reductions beyond op_layer_ops.cc's (issue #38): the NaN-ignoring reductions and
// scans (nansum ... nancumprod), quantiles (quantile, percentile, median: a sort along the
// reduced axes, then the positions Keras's TensorFlow backend reads), norms, n-th differences
// and the trapezoid rule, each in the formula keras/src/backend/tensorflow computes, composed
// from graph ops (so that they run, with their gradients, wherever those do).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/matrix_decompositions.h"
#include "core/ops/scan_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// The call's "axis" normalized (every axis when None), in the order given.
std::vector<std::int64_t> axes_of(C c, const Output& x) {
  std::vector<std::int64_t> axes;
  if (auto a = c.axes("axis")) {
    for (auto v : *a) axes.push_back(normalize_axis(v, x.shape().rank(), c.where));
  } else {
    for (int i = 0; i < x.shape().rank(); ++i) axes.push_back(i);
  }
  return axes;
}

Output reduce_min(Output x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return ops::neg(ops::reduce_max(ops::neg(x), axes, keepdims));
}

// x with NaN replaced by `value` (a constant: no gradient reaches the NaN's place).
Output nan_as(C c, Output x, float value) { return ops::where(is_nan(x), scalar(c, value), x); }

// 1 where every element over the axes is NaN (tf.reduce_all of is_nan).
Output all_nan(Output x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return reduce_min(is_nan(x), axes, keepdims);
}

Output nansum(C c, Output x, const std::vector<std::int64_t>& axes, bool keepdims) {
  return ops::reduce_sum(nan_as(c, x, 0.f), axes, keepdims);
}

// nansum / the count of the numbers (NaN where there are none).
Output nanmean(C c, Output x, const std::vector<std::int64_t>& axes, bool keepdims) {
  const Output count = ops::reduce_sum(ops::sub(1.0f, is_nan(x)), axes, keepdims);
  return ops::div(nansum(c, x, axes, keepdims), count);
}

// The largest (smallest) number, NaN counted as −inf (+inf); NaN where all are NaN.
Output nan_extreme(C c, bool largest) {
  const Output x = c.arg(0);
  const auto axes = axes_of(c, x);
  const bool keep = c.flag("keepdims");
  const Output clean = nan_as(c, x, largest ? -kInf : kInf);
  const Output m = largest ? ops::reduce_max(clean, axes, keep) : reduce_min(clean, axes, keep);
  return ops::where(all_nan(x, axes, keep), scalar(c, std::numeric_limits<float>::quiet_NaN()), m);
}

// Σ (x − nanmean)² over the numbers / their count.
Output nanvar(C c) {
  const Output x = c.arg(0);
  const auto axes = axes_of(c, x);
  const bool keep = c.flag("keepdims");
  const Output valid = ops::sub(1.0f, is_nan(x));
  const Output centered = ops::where(valid, ops::sub(x, nanmean(c, x, axes, true)), scalar(c, 0.f));
  return ops::div(ops::reduce_sum(ops::square(centered), axes, keep), ops::reduce_sum(valid, axes, keep));
}

// The position of the largest (smallest) number, NaN counted as −inf (+inf); -1 where all
// are NaN. int32.
Output nan_arg_extreme(C c, bool largest) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  const bool keep = c.flag("keepdims");
  const Output clean = nan_as(c, x, largest ? -kInf : kInf);
  Output i = ops::cast(ops::argmax(largest ? clean : ops::neg(clean), axis), DType::float32);
  if (keep) i = expand_dims(i, axis, c.where);
  const Output none = all_nan(x, {axis}, keep);
  return ops::cast(ops::where(none, scalar(c, -1.f), i), DType::int32);
}

// nan_to_num(x, nan=value), as nancumsum and nancumprod: NaN to `value`, ±inf to float32's
// largest finite values.
Output nan_to_number(C c, Output x, float value) {
  const float big = std::numeric_limits<float>::max();
  Output y = nan_as(c, x, value);
  y = ops::where(ops::equal(x, scalar(c, kInf)), scalar(c, big), y);
  return ops::where(ops::equal(x, scalar(c, -kInf)), scalar(c, -big), y);
}

Output nan_scan(C c, bool product) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  const Output clean = nan_to_number(c, x, product ? 1.f : 0.f);
  return with_dtype(c, product ? ops::cumprod(clean, axis) : ops::cumsum(clean, axis));
}

// keras.ops.quantile's q-th quantile (q a constant number) over the call's axes: the axes
// moved last and flattened, sorted, and read at the positions Keras's _quantile computes in
// float64 for `method` (Quantile's always linear, as Keras's); NaN where the axes hold a NaN.
// None (every axis, the batch's too) is refused, as is a list of q (its axis would come
// before the batch).
Output quantile_of(C c, Output x, float q) {
  if (!c.has("axis")) refuse(c, "axis", "None flattens the batch axis into the result");
  if (q < 0.f || q > 1.f) throw ValueError(c.where + ": q " + std::to_string(q) + " is outside [0, 1]");
  const auto axes = axes_of(c, x);
  const int rank = x.shape().rank();
  std::vector<std::int64_t> perm, kept;
  for (int a = 0; a < rank; ++a)
    if (std::find(axes.begin(), axes.end(), a) == axes.end()) perm.push_back(a);
  kept = perm;
  std::int64_t d = 1;
  for (auto a : axes) {
    d *= known_size(c, "axis", x, static_cast<int>(a));
    perm.push_back(a);
  }
  std::vector<std::int64_t> flat;
  for (auto a : kept) flat.push_back(a == 0 ? -1 : x.shape().dims()[static_cast<std::size_t>(a)]);
  flat.push_back(d);
  const int last = static_cast<int>(kept.size());
  const Output sorted = sort_along(c, ops::reshape(ops::transpose(x, perm), flat), last);
  const double exact = (static_cast<double>(d) - 1.0) * static_cast<double>(q);
  auto clipped = [&](double i) { return std::clamp<std::int64_t>(static_cast<std::int64_t>(i), 0, d - 1); };
  auto at = [&](std::int64_t i) { return slice(sorted, last, i, i + 1); };
  const std::string method = c.has("method") ? c.text("method") : "linear";
  Output y;
  if (method == "lower") {
    y = at(clipped(std::floor(exact)));
  } else if (method == "higher") {
    y = at(clipped(std::ceil(exact)));
  } else if (method == "nearest") {
    y = at(clipped(std::nearbyint(exact)));  // tf.round: half to even
  } else if (method == "midpoint") {
    y = ops::mul(ops::add(at(clipped(std::floor(exact))), at(clipped(std::ceil(exact)))), 0.5f);
  } else if (method == "linear") {
    const std::int64_t smaller = std::max<std::int64_t>(clipped(std::ceil(exact)) - 1, 0);
    const std::int64_t larger = std::min(smaller + 1, d - 1);
    const auto fraction = static_cast<float>(static_cast<double>(larger) - exact);
    y = ops::add(ops::mul(at(larger), 1.0f - fraction), ops::mul(at(smaller), fraction));
  } else {
    refuse(c, "method", "linear, lower, higher, nearest and midpoint are");
  }
  y = drop_axis(y, last, c.where);
  const Output any_nan = ops::reduce_max(is_nan(x), axes, false);
  y = ops::where(any_nan, scalar(c, std::numeric_limits<float>::quiet_NaN()), y);
  if (c.flag("keepdims")) {
    std::vector<std::int64_t> sorted_axes = axes;
    std::sort(sorted_axes.begin(), sorted_axes.end());
    for (auto a : sorted_axes) y = expand_dims(y, a, c.where);
  }
  return y;
}

// keras.ops.nanquantile: quantile_of over the numbers of each lane only (NaN where there are
// none). The lane is sorted with its NaNs last, and read at positions computed from its count
// of numbers n (tensors, per lane) as Keras's _quantile computes them for a lane of n.
Output nanquantile_of(C c, Output x, float q) {
  if (!c.has("axis")) refuse(c, "axis", "None flattens the batch axis into the result");
  if (q < 0.f || q > 1.f) throw ValueError(c.where + ": q " + std::to_string(q) + " is outside [0, 1]");
  const auto axes = axes_of(c, x);
  const int rank = x.shape().rank();
  std::vector<std::int64_t> perm, flat;
  for (int a = 0; a < rank; ++a) {
    if (std::find(axes.begin(), axes.end(), a) != axes.end()) continue;
    perm.push_back(a);
    flat.push_back(a == 0 ? -1 : x.shape().dims()[static_cast<std::size_t>(a)]);
  }
  std::int64_t d = 1;
  for (auto a : axes) {
    d *= known_size(c, "axis", x, static_cast<int>(a));
    perm.push_back(a);
  }
  flat.push_back(d);
  const int last = static_cast<int>(flat.size()) - 1;
  const Output lanes = ops::reshape(ops::transpose(x, perm), flat);
  const Output sorted = sort_along(c, lanes, last);  // NaN sorts last
  const Output n = ops::reduce_sum(ops::sub(1.0f, is_nan(lanes)), {last}, true);  // (..., 1)
  const Output top = ops::sub(n, 1.0f);
  const Output exact = ops::mul(top, q);
  auto clipped = [&](Output i) { return ops::minimum(ops::maximum(i, 0.0f), top); };
  auto at = [&](Output i) { return gather_along(c, sorted, i, last); };
  const std::string method = c.has("method") ? c.text("method") : "linear";
  Output y;
  if (method == "lower") {
    y = at(clipped(ops::floor(exact)));
  } else if (method == "higher") {
    y = at(clipped(ops::ceil(exact)));
  } else if (method == "nearest") {
    y = at(clipped(ops::round(exact)));  // half to even, as tf.round
  } else if (method == "midpoint") {
    y = ops::mul(ops::add(at(clipped(ops::floor(exact))), at(clipped(ops::ceil(exact)))), 0.5f);
  } else if (method == "linear") {
    const Output smaller = ops::maximum(ops::sub(clipped(ops::ceil(exact)), 1.0f), 0.0f);
    const Output larger = ops::minimum(ops::add(smaller, 1.0f), top);
    const Output fraction = ops::stop_gradient(ops::sub(larger, exact));
    y = ops::add(ops::mul(at(larger), ops::sub(1.0f, fraction)), ops::mul(at(smaller), fraction));
  } else {
    refuse(c, "method", "linear, lower, higher, nearest and midpoint are");
  }
  y = ops::where(ops::equal(n, scalar(c, 0.f)), scalar(c, std::numeric_limits<float>::quiet_NaN()), y);
  y = drop_axis(y, last, c.where);
  if (c.flag("keepdims")) {
    std::vector<std::int64_t> sorted_axes = axes;
    std::sort(sorted_axes.begin(), sorted_axes.end());
    for (auto a : sorted_axes) y = expand_dims(y, a, c.where);
  }
  return y;
}

// q as a constant number (the call's second argument).
float constant_q(C c) {
  if (c.arguments.size() < 2 || c.arguments[1].kind != OpArgument::Kind::number)
    throw NotImplementedError(c.where + ": q must be one constant number (a tensor or a list of q is not supported)");
  return static_cast<float>(c.arguments[1].number);  // float32, as Keras converts it
}

// keras.ops.norm: vector orders (one axis) None/2, 0, 1 and other numbers; matrix orders
// (two axes) None/'fro', 1 and -1. Orders needing singular values are refused, as is
// axis None (it takes the batch axis in).
// Keras's matrix norms of the singular values (ord 2: the largest, -2: the smallest, 'nuc',
// given as 0 here: their sum): the two axes moved last as its moveaxis, then tf.linalg.svd's
// values; keepdims puts axis[0] and axis[1], as given, back as Keras's expand_dims calls do.
Output singular_value_norm(C c, Output x, double order, bool keep) {
  const std::vector<std::int64_t> given = *c.axes("axis");
  const int rank = rank_of(x);
  const std::int64_t first = normalize_axis(given[0], rank, c.where), second = normalize_axis(given[1], rank, c.where);
  std::vector<std::int64_t> perm;
  for (std::int64_t i = 0; i < rank; ++i)
    if (i != first && i != second) perm.push_back(i);
  perm.push_back(first);
  perm.push_back(second);
  const Output s = ops::singular_values(ops::transpose(x, perm));
  const std::vector<std::int64_t> last{rank_of(s) - 1};
  Output y = order == 2.0    ? ops::reduce_max(s, last)
             : order == -2.0 ? reduce_min(s, last, false)
                             : ops::reduce_sum(s, last);
  if (keep) y = ops::expand_dims(ops::expand_dims(y, static_cast<int>(given[0])), static_cast<int>(given[1]));
  return y;
}

Output norm(C c) {
  const Output x = c.arg(0);
  if (!c.has("axis")) refuse(c, "axis", "None takes the batch axis into the norm");
  const auto axes = axes_of(c, x);
  const bool keep = c.flag("keepdims");
  const ConfigValue order = c.has("ord") ? c.attrs.at("ord") : ConfigValue{};
  const bool none = std::holds_alternative<std::monostate>(order);
  const auto* text = std::get_if<std::string>(&order);
  std::optional<double> p;
  if (const auto* i = std::get_if<std::int64_t>(&order)) p = static_cast<double>(*i);
  if (const auto* f = std::get_if<double>(&order)) p = *f;
  const Output magnitude = ops::abs(x);
  if (axes.size() == 1) {
    if (none || (p && *p == 2.0)) return ops::sqrt(ops::reduce_sum(ops::mul(x, x), axes, keep));
    if (!p || std::isinf(*p)) refuse(c, "ord", "vector orders None, 0 and finite numbers are");
    if (*p == 0.0) return ops::reduce_sum(ops::not_equal(x, scalar(c, 0.f)), axes, keep);
    if (*p == 1.0) return ops::reduce_sum(magnitude, axes, keep);
    const auto power = static_cast<float>(*p);
    const Output sum = ops::reduce_sum(ops::exp(ops::mul(ops::log(magnitude), power)), axes, keep);
    return ops::exp(ops::mul(ops::log(sum), 1.0f / power));
  }
  if (axes.size() != 2) refuse(c, "axis", "one axis (a vector norm) or two (a matrix norm) are");
  if (none || (text && *text == "fro")) return ops::sqrt(ops::reduce_sum(ops::mul(x, x), axes, keep));
  if ((text && *text == "nuc") || (p && std::fabs(*p) == 2.0)) return singular_value_norm(c, x, p.value_or(0.0), keep);
  if (!p || (*p != 1.0 && *p != -1.0))
    refuse(c, "ord", "matrix orders None, 'fro', 'nuc', 2, -2, 1 and -1 are (inf is not)");
  // The largest (smallest) column sum of |x|.
  const Output columns = ops::reduce_sum(magnitude, {axes[0]}, true);
  Output y = *p > 0 ? ops::reduce_max(columns, {axes[1]}, true) : reduce_min(columns, {axes[1]}, true);
  if (!keep) {
    y = drop_axis(y, static_cast<int>(std::max(axes[0], axes[1])), c.where);
    y = drop_axis(y, static_cast<int>(std::min(axes[0], axes[1])), c.where);
  }
  return y;
}

// The n-th difference along `axis`: x[1:] − x[:-1], n times.
Output diff(C c) {
  Output x = c.arg(0);
  const auto n = static_cast<std::int64_t>(c.has("n") ? c.number("n") : 1);
  if (n < 0) refuse(c, "n", "it must be 0 or more");
  if (n == 0) return x;
  const int axis = static_cast<int>(normalize_axis(c.has("axis") ? static_cast<std::int64_t>(c.number("axis")) : -1,
                                                   x.shape().rank(), c.where));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t size = known_size(c, "axis", x, axis);
    if (size < 2) refuse(c, "n", "each difference needs an axis of 2 or more");
    x = ops::sub(slice(x, axis, 1, size), slice(x, axis, 0, size - 1));
  }
  return x;
}

// Σ 0.5 · (y[1:] + y[:-1]) · dx along `axis` (sample points x are refused).
Output trapezoid(C c) {
  const Output y = c.arg(0);
  if (c.has("x") || c.args.size() > 1) refuse(c, "x", "sample points are not supported, dx is");
  const int axis = static_cast<int>(normalize_axis(c.has("axis") ? static_cast<std::int64_t>(c.number("axis")) : -1,
                                                   y.shape().rank(), c.where));
  const std::int64_t n = known_size(c, "axis", y, axis);
  const auto dx = static_cast<float>(c.has("dx") ? c.number("dx") : 1.0);
  const Output heights = ops::mul(ops::add(slice(y, axis, 1, n), slice(y, axis, 0, n - 1)), 0.5f);
  return ops::reduce_sum(ops::mul(heights, dx), {axis}, false);
}

}  // namespace

const std::map<std::string, OpFn>& reduction_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Nansum", [](C c) { return nansum(c, c.arg(0), axes_of(c, c.arg(0)), c.flag("keepdims")); }},
      {"Nanmean", [](C c) { return nanmean(c, c.arg(0), axes_of(c, c.arg(0)), c.flag("keepdims")); }},
      {"Nanmax", [](C c) { return nan_extreme(c, true); }},
      {"Nanmin", [](C c) { return nan_extreme(c, false); }},
      {"Nanprod", [](C c) { return product_over(c, nan_as(c, c.arg(0), 1.f)); }},
      {"Nanvar", nanvar},
      {"Nanstd", [](C c) { return ops::sqrt(nanvar(c)); }},
      {"Nanargmax", [](C c) { return nan_arg_extreme(c, true); }},
      {"Nanargmin", [](C c) { return nan_arg_extreme(c, false); }},
      {"Nancumsum", [](C c) { return nan_scan(c, false); }},
      {"Nancumprod", [](C c) { return nan_scan(c, true); }},
      {"Quantile",
       [](C c) {
         // Keras 3.15's Quantile operation does not pass `method` on (Percentile's does): a
         // saved Quantile computes linear whatever its config says; another method is refused.
         if (c.has("method") && c.text("method") != "linear")
           refuse(c, "method", "Keras's saved Quantile computes 'linear' whatever method it names");
         return quantile_of(c, c.arg(0), constant_q(c));
       }},
      {"Percentile", [](C c) { return quantile_of(c, c.arg(0), constant_q(c) / 100.0f); }},
      {"Median", [](C c) { return quantile_of(c, c.arg(0), 0.5f); }},
      {"Nanquantile", [](C c) { return nanquantile_of(c, c.arg(0), constant_q(c)); }},
      {"Nanpercentile", [](C c) { return nanquantile_of(c, c.arg(0), constant_q(c) / 100.0f); }},
      {"Nanmedian", [](C c) { return nanquantile_of(c, c.arg(0), 0.5f); }},
      {"Norm", norm},
      {"Diff", diff},
      {"Trapezoid", trapezoid},
  };
  return t;
}

}  // namespace strata::layers::op_detail
