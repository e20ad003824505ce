// keras.ops binning and index arithmetic (issue #38): searchsorted, histogram and
// unravel_index (one result per axis of the shape), composed of comparisons, sums and float
// arithmetic as Keras's TensorFlow backend computes them, so each runs on every device those
// ops run on. Integer results keep Keras's dtypes; the arithmetic is float32's, exact for
// integers below 2^24. bincount, nonzero and unique, whose results' sizes depend on the
// values, are ops of their own (core/ops/data_sized_ops.h).
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/data_sized_ops.h"
#include "core/ops/one_hot.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output to_float(const Output& x) { return x.dtype() == DType::float32 ? x : ops::cast(x, DType::float32); }

// The insertion points of `values` (any shape) into the 1-D sorted_sequence: how many of its
// elements are below each value (side "left", tf.searchsorted's lower_bound) or not above it
// ("right", upper_bound; a NaN value is below none, so it goes past the end there and to 0 on
// the left, as a binary search puts it). int32, as Keras's TensorFlow backend returns for any
// sequence shorter than 2^31 (its symbolic result says int64 for a sequence of unknown length,
// a functional model's input, but the run's tensor has a length, and the result is int32).
// Keras's TensorFlow backend takes 1-D values only; other shapes give NumPy's (and Keras's
// JAX backend's) answer, each value searched alone.
// How many of the 1-D float32 sequence's elements are below each value (`right`: not above
// it), float32 of values' shape, with no gradient.
Output insertion_points(C c, const Output& sequence, const Output& values, bool right) {
  std::vector<std::int64_t> row(static_cast<std::size_t>(rank_of(values)), 1);
  row.push_back(-1);
  const Output seq = ops::reshape(sequence, row);
  const Output v = expand_dims(values, -1, c.where);
  const Output counted = right ? ops::sub(1.0f, ops::less(v, seq)) : ops::less(seq, v);
  return ops::stop_gradient(ops::reduce_sum(counted, {static_cast<std::int64_t>(rank_of(values))}, false));
}

Output searchsorted(C c) {
  const Output sequence = to_float(c.arg(0)), values = to_float(c.arg(1));
  if (rank_of(sequence) != 1)
    throw ValueError(c.where + ": searchsorted only supports 1-D sorted sequences, got " +
                     sequence.shape().to_string());
  const std::string side = c.has("side") ? c.text("side") : "left";
  if (side != "left" && side != "right") refuse(c, "side", "must be 'left' or 'right'");
  return ops::cast(insertion_points(c, sequence, values, side == "right"), DType::int32);
}

// keras.ops.unravel_index as Keras's TensorFlow backend: for 1-D indices (a functional model's
// batch) NumPy's coordinates, dividing by the shape's sizes last to first; for indices of more
// axes the backend divides first to last (each coordinate i mod size, then i floor-divided)
// and returns the remainders in reverse, which is NumPy's only when the sizes are symmetric:
// Keras's result, computed as it is. Python's floor division and modulo (negative indices
// wrap as TensorFlow's do), each coordinate in the indices' dtype.
std::vector<Output> unravel_index(C c) {
  const Output indices = c.arg(0);
  const auto shape = c.axes("shape");
  if (!shape || shape->empty()) throw ValueError(c.where + ": needs 'shape'");
  for (std::int64_t d : *shape)
    if (d <= 0) refuse(c, "shape", "positive sizes are needed");
  Output rest = to_float(indices);
  const bool vector = rank_of(indices) == 1;
  std::vector<Output> coordinates;
  for (std::size_t k = 0; k < shape->size(); ++k) {
    const auto size = static_cast<float>(vector ? (*shape)[shape->size() - 1 - k] : (*shape)[k]);
    const Output quotient = ops::floor(ops::div(rest, size));
    coordinates.push_back(ops::sub(rest, ops::mul(quotient, size)));
    rest = quotient;
  }
  std::vector<Output> out;
  for (auto it = coordinates.rbegin(); it != coordinates.rend(); ++it) {
    const Output y = ops::stop_gradient(*it);
    out.push_back(indices.dtype() == DType::float32 ? y : ops::cast(y, indices.dtype()));
  }
  return out;
}

// bincount(x, weights=None, minlength=0, sparse=False): counts along the last axis of a rank 1
// or 2 x. Keras saves weights only as a Python list, which holds the batch's values (its
// fixed size): refused. sparse=True: Keras's tf.SparseTensor holds these counts; Strata's
// tensors are dense.
Output bincount(C c) {
  if (c.has("weights")) refuse(c, "weights", "a constant of the batch's size is not computed");
  const double minlength = c.has("minlength") ? c.number("minlength") : 0.0;
  if (std::floor(minlength) != minlength || minlength < 0 || minlength > 1e9)
    refuse(c, "minlength", "a whole number 0 or more is needed");
  return ops::bincount(c.arg(0), static_cast<std::int64_t>(minlength));
}

// unique(x, sorted, return_index, return_inverse, return_counts, axis, size, fill_value): over
// the flattened x; its results (values, then each one asked for) in Keras's order.
std::vector<Output> unique(C c) {
  if (c.has("axis")) refuse(c, "axis", "only None (the flattened tensor) is computed");
  ops::UniqueOptions o{.sorted = !c.has("sorted") || c.flag("sorted"),
                       .return_index = c.has("return_index") && c.flag("return_index"),
                       .return_inverse = c.has("return_inverse") && c.flag("return_inverse"),
                       .return_counts = c.has("return_counts") && c.flag("return_counts")};
  if (c.has("size")) {
    const double size = c.number("size");
    if (std::floor(size) != size || size < 0 || size > 1e9) refuse(c, "size", "a whole number 0 or more is needed");
    o.size = static_cast<std::int64_t>(size);
  }
  if (c.has("fill_value")) o.fill_value = c.number("fill_value");
  return ops::unique(c.arg(0), o);
}

// keras.ops.histogram as the function computes it: Keras 3.15's Histogram operation calls
// backend.math.histogram, which no backend defines, so Keras fails to call the model it saves;
// the function (backend.numpy.histogram on TensorFlow) counts the values inside [lo, hi] (x's
// min and max, or `range`) into `bins` bins whose edges are tf.linspace(lo, hi, bins + 1)
// (lo, lo + Δ·i, hi with Δ = (hi − lo) / bins: linspace_samples), a value's bin the number of
// inner edges at or below it (searchsorted right: insertion_points): (counts in x's dtype,
// edges). x is 1-D, as Keras checks: in a
// functional model, the batch. The edges' gradient goes to x's min and max, as TensorFlow's;
// the counts have none.
std::vector<Output> histogram(C c) {
  const Output x = c.arg(0);
  if (rank_of(x) != 1)
    throw ValueError(c.where + ": the input must be 1-dimensional (as Keras checks), got " + x.shape().to_string());
  if (x.dtype() != DType::float32)
    throw NotImplementedError(c.where + ": a float32 input is supported, got " + to_string(x.dtype()));
  const double bins_given = c.has("bins") ? c.number("bins") : 10.0;
  // Each value is compared with every inner edge: up to 2^16 bins (Keras sets no bound).
  if (bins_given < 1 || bins_given > 65536 || std::floor(bins_given) != bins_given)
    refuse(c, "bins", "a whole number of bins from 1 to 65536 is supported");
  const auto bins = static_cast<std::int64_t>(bins_given);
  Output lo, hi;
  if (c.has("range")) {
    const ConfigValue& r = c.attrs.at("range");
    std::vector<double> ends;
    if (const auto* d = std::get_if<std::vector<double>>(&r)) ends = *d;
    if (const auto* i = std::get_if<std::vector<std::int64_t>>(&r)) ends.assign(i->begin(), i->end());
    if (ends.size() != 2 || ends[1] < ends[0]) refuse(c, "range", "(lo, hi) with lo <= hi is needed");
    lo = scalar(c, static_cast<float>(ends[0]));
    hi = scalar(c, static_cast<float>(ends[1]));
  } else {
    lo = ops::neg(ops::reduce_max(ops::neg(x), {0}, false));
    hi = ops::reduce_max(x, {0}, false);
  }
  const Output edges = linspace_samples(c, lo, hi, bins + 1);
  const Output bin = bins == 1 ? ops::zeros_like(x) : insertion_points(c, slice(edges, 0, 1, bins), x, true);
  const Output inside = ops::mul(ops::greater_equal(x, lo), ops::less_equal(x, hi));
  const Output rows = ops::mul(ops::one_hot(ops::cast(bin, DType::int32), bins), ops::expand_dims(inside, 1));
  return {ops::reduce_sum(rows, {0}, false), edges};
}

}  // namespace

const std::map<std::string, OpFn>& bin_ops() {
  static const std::map<std::string, OpFn> t = {
      {"SearchSorted", searchsorted},
      {"Bincount", bincount},
  };
  return t;
}

const std::map<std::string, MultiOpFn>& bin_multi_output_ops() {
  static const std::map<std::string, MultiOpFn> t = {
      {"UnravelIndex", unravel_index},
      {"Nonzero", [](C c) { return ops::nonzero(c.arg(0)); }},
      {"Unique", unique},
      {"Histogram", histogram},
  };
  return t;
}

}  // namespace strata::layers::op_detail
