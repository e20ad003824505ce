// keras.ops operations that space samples between tensors and build grids of them (issue #38):
// linspace, logspace and geomspace with a functional model's tensors as start and stop, and
// meshgrid, each in the formula Keras's TensorFlow backend computes
// (keras/src/backend/tensorflow/numpy.py, tf.linspace and tf.meshgrid), composed from graph ops
// so that they run on every device those run on, with their gradients.
#include <algorithm>
#include <cmath>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output float32_of(Output x) { return x.dtype() == DType::float32 ? x : ops::cast(x, DType::float32); }

// The call's `num`: a positive count. Keras's num=0 gives an empty axis, which Strata's
// tensors do not hold.
std::int64_t sample_count(C c) {
  const double value = c.has("num") ? c.number("num") : 50.0;
  const auto n = static_cast<std::int64_t>(value);
  if (static_cast<double>(n) != value || n < 1) refuse(c, "num", "a positive count is needed: num=0 is an empty axis");
  return n;
}

// The samples' dtype: float32 (float16, bfloat16 and float64 computed in float32, as elsewhere
// in OpLayer). Integer dtypes are refused: Keras's TensorFlow backend truncates start and stop to
// integers first, spaces them in float64 and floors.
void expect_float_dtype(C c) {
  if (c.has("dtype") && dtype_of(c.text("dtype"), c.where) != DType::float32)
    refuse(c, "dtype", "samples are computed in float32; integer dtypes are not");
}

// The call's `axis` (0 when absent) in a result of the given rank: where the samples go.
std::int64_t samples_axis(C c, int rank) {
  const auto axis = c.axes("axis").value_or(std::vector<std::int64_t>{0});
  if (axis.size() != 1) refuse(c, "axis", "one axis is");
  return normalize_axis(axis[0], static_cast<std::size_t>(rank), c.where);
}

}  // namespace

// tf.linspace(start, stop, num, axis): start and stop broadcast against each other, a new axis
// `axis` of num samples: start, start + k · (stop − start) / (num − 1) for k = 1 .. num − 2, and
// stop itself last.
Output linspace_samples(C c, Output start, Output stop, std::int64_t num) {
  start = ops::add(start, ops::zeros_like(stop));  // tf.broadcast_to both
  stop = ops::add(stop, ops::zeros_like(start));
  const auto rank = static_cast<std::size_t>(rank_of(start)) + 1;
  const std::int64_t axis = samples_axis(c, static_cast<int>(rank));
  const Output first = expand_dims(start, axis, c.where), last = expand_dims(stop, axis, c.where);
  if (num == 1) return first;
  std::vector<Output> parts{first};
  if (num > 2) {
    const Output delta = ops::div(ops::sub(last, first), static_cast<float>(num - 1));
    std::vector<std::int64_t> dims(rank, 1);
    dims[static_cast<std::size_t>(axis)] = num - 2;
    std::vector<float> steps;
    for (std::int64_t k = 1; k <= num - 2; ++k) steps.push_back(static_cast<float>(k));
    const Output range = c.graph.variable(Variable(c.where + "/range", Tensor::from_vector(Shape(dims), steps), false));
    parts.push_back(ops::add(first, ops::mul(delta, range)));
  }
  parts.push_back(last);
  return ops::concat(parts, static_cast<int>(axis));
}

namespace {

// Keras's linspace: tf.linspace, or for endpoint=False tf.linspace to stop − (stop − start) / num.
Output linspace_of(C c, Output start, Output stop) {
  const std::int64_t num = sample_count(c);
  const bool endpoint = !c.has("endpoint") || c.flag("endpoint");
  if (!endpoint && num > 1) stop = ops::sub(stop, ops::div(ops::sub(stop, start), static_cast<float>(num)));
  return linspace_samples(c, start, stop, num);
}

Output linspace(C c) {
  if (c.flag("retstep"))
    refuse(c, "retstep", "Keras 3.15's Linspace returns None for the step on a model's tensors, which it cannot save");
  expect_float_dtype(c);
  return linspace_of(c, float32_of(c.arg(0)), float32_of(c.arg(1)));
}

// base ** samples, as exp(samples · ln base): tf.pow's value to float32's rounding, and its
// gradient. A base of 0 or below is refused (its powers are real at whole exponents only).
Output powers(C c, Output samples, double base) {
  if (!(base > 0.0)) refuse(c, "base", "a positive base is needed");
  return ops::exp(ops::mul(samples, static_cast<float>(std::log(base))));
}

Output logspace(C c) {
  expect_float_dtype(c);
  const double base = c.has("base") ? c.number("base") : 10.0;
  return powers(c, linspace_of(c, float32_of(c.arg(0)), float32_of(c.arg(1))), base);
}

// Keras's geomspace: logspace(log|start| / ln 10, log|stop| / ln 10) times sign(start), the
// sign broadcast against the samples from their last axis. That lines each sample up with its
// own start's sign only where the samples' axis comes before all of start's axes (axis 0, or a
// scalar start); elsewhere Keras's own model fails when run (Incompatible shapes): refused.
Output geomspace(C c) {
  expect_float_dtype(c);
  const Output start = float32_of(c.arg(0)), stop = float32_of(c.arg(1));
  const int rank = std::max(rank_of(start), rank_of(stop)) + 1;
  if (samples_axis(c, rank) > rank - 1 - rank_of(start))
    refuse(c, "axis",
           "Keras 3.15 multiplies by start's sign broadcast from the last axis, which lines up only when the "
           "samples' axis comes before start's axes, as axis=0");
  const Output ln10 = scalar(c, static_cast<float>(std::log(10.0)));
  auto log10_of = [&](Output x) { return ops::div(ops::log(ops::abs(x)), ln10); };
  return ops::mul(powers(c, linspace_of(c, log10_of(start), log10_of(stop)), 10.0), ops::sign(start));
}

// tf.meshgrid: each input flattened (the batch axis with it) along its own axis of the grid
// (the first two swapped for indexing "xy"), then broadcast to the whole grid.
std::vector<Output> meshgrid(C c) {
  const std::string indexing = c.has("indexing") ? c.text("indexing") : "xy";
  if (indexing != "xy" && indexing != "ij") refuse(c, "indexing", "'xy' and 'ij' are the indexings");
  const std::size_t n = c.args.size();
  std::vector<Output> axes;
  for (std::size_t i = 0; i < n; ++i) {
    const Output x = c.arg(i);
    if (x.dtype() != DType::float32)
      throw NotImplementedError(c.where + ": input " + std::to_string(i) + " of dtype " + to_string(x.dtype()) +
                                " is not supported (Strata's elementwise ops compute in float32)");
    std::vector<std::int64_t> dims(n, 1);
    std::size_t at = i;
    if (indexing == "xy" && n > 1 && i < 2) at = 1 - i;
    dims[at] = -1;
    axes.push_back(ops::reshape(x, dims));
  }
  Output grid = ops::ones_like(axes.at(0));
  for (std::size_t i = 1; i < n; ++i) grid = ops::mul(grid, ops::ones_like(axes[i]));
  std::vector<Output> out;
  for (const Output& x : axes) out.push_back(ops::broadcast_like(x, grid));
  return out;
}

}  // namespace

const std::map<std::string, OpFn>& grid_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Linspace", linspace},
      {"Logspace", logspace},
      {"Geomspace", geomspace},
  };
  return t;
}

const std::map<std::string, MultiOpFn>& grid_multi_output_ops() {
  static const std::map<std::string, MultiOpFn> t = {{"Meshgrid", meshgrid}};
  return t;
}

}  // namespace strata::layers::op_detail
