// keras.ops operations that cut, pad, mask, gather, stack and encode arrays (issue #38), and
// those with several results (split, array_split, unstack, moments), as Keras's TensorFlow
// backend computes them, composed from graph ops (crops, reverses, concatenations, one-hot
// rows and masks made from running sums of ones), which carry their own gradients.
#include <algorithm>
#include <cmath>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/batch_norm_ops.h"
#include "core/ops/batch_split.h"
#include "core/ops/diag_ops.h"
#include "core/ops/one_hot.h"
#include "core/ops/scan_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// The axis an integer attribute names (`fallback` when absent), normalized for `rank`.
int axis_attribute(C c, const std::string& key, std::int64_t fallback, int rank) {
  const auto axis = c.has(key) ? static_cast<std::int64_t>(c.number(key)) : fallback;
  return static_cast<int>(normalize_axis(axis, static_cast<std::size_t>(rank), c.where));
}

// keras.ops.slice(x, start_indices, shape): a size of -1 runs to the end; the batch axis is
// taken whole (start 0, size -1), its size being the run's, unless the model's inputs have a
// fixed batch size (then it is cut as the others are).
Output slice_op(C c) {
  const Output x = c.arg(0);
  const OpArgument& starts = c.arguments.at(1);
  const auto sizes = c.axes("shape");
  const auto rank = static_cast<std::size_t>(rank_of(x));
  if (starts.kind != OpArgument::Kind::integers || starts.values.size() != rank || !sizes || sizes->size() != rank ||
      std::any_of(starts.values.begin(), starts.values.end(), [](double v) { return std::isnan(v); }))
    refuse(c, "shape", "start_indices and shape must be lists of one integer per axis");
  Output y = x;
  for (std::size_t a = 0; a < rank; ++a) {
    const auto begin = static_cast<std::int64_t>(starts.values[a]);
    const std::int64_t size = (*sizes)[a];
    if (a == 0 && x.shape().dims()[0] == kUnknownDim) {
      if (begin != 0 || (size != -1 && size != kUnknownDim)) refuse(c, "shape", "the batch axis is taken whole");
      continue;
    }
    const std::int64_t n = x.shape().dims()[a];
    const std::int64_t end = size < 0 ? n : begin + size;
    if (begin < 0 || end > n || begin > end)
      throw ValueError(c.where + ": slice [" + std::to_string(begin) + ", " + std::to_string(end) + ") of axis " +
                       std::to_string(a) + " of " + x.shape().to_string());
    y = slice(y, static_cast<int>(a), begin, end);
  }
  return y;
}

// The parts of split / array_split along `axis`: a count of parts (equal ones for split,
// the first n % count one longer for array_split) or the indices where parts begin.
std::vector<Output> split_parts(C c, bool uneven, int fixed_axis = -1) {
  const Output x = c.arg(0);
  const int axis = fixed_axis >= 0 ? fixed_axis : one_axis(c, "axis", x);
  if (axis >= rank_of(x))
    throw ValueError(c.where + ": input " + x.shape().to_string() + " has no axis " + std::to_string(axis));
  const auto spec = c.axes("indices_or_sections");
  if (!spec) refuse(c, "indices_or_sections", "a count or a list of indices is needed");
  if (axis == 0) {
    // The batch axis, whose size is the run's: equal parts, as tf.split takes a count (indices
    // there need the axis's size, which Keras's TensorFlow backend reads as None and fails on).
    const auto* count = std::get_if<std::int64_t>(&c.attrs.at("indices_or_sections"));
    if (!count || uneven)
      refuse(c, "indices_or_sections", "along the batch axis only a count of equal parts is computed");
    if (*count < 1) refuse(c, "indices_or_sections", "a count of 1 or more");
    return ops::batch_split(x, *count);
  }
  const std::int64_t n = known_size(c, "axis", x, axis);
  std::vector<std::int64_t> bounds{0};
  if (const auto* count = std::get_if<std::int64_t>(&c.attrs.at("indices_or_sections"))) {
    if (*count < 1) refuse(c, "indices_or_sections", "a count of 1 or more");
    if (!uneven && n % *count != 0) refuse(c, "indices_or_sections", "split needs a count that divides the axis");
    for (std::int64_t i = 0; i < *count; ++i) bounds.push_back(bounds.back() + n / *count + (i < n % *count ? 1 : 0));
  } else {
    for (std::int64_t i : *spec) {
      const std::int64_t at = std::clamp<std::int64_t>(i < 0 ? i + n : i, 0, n);
      if (at < bounds.back()) refuse(c, "indices_or_sections", "indices in increasing order");
      bounds.push_back(at);
    }
    bounds.push_back(n);
  }
  std::vector<Output> parts;
  for (std::size_t i = 0; i + 1 < bounds.size(); ++i) parts.push_back(slice(x, axis, bounds[i], bounds[i + 1]));
  return parts;
}

std::vector<Output> unstack(C c) {
  const Output x = c.arg(0);
  const int axis = one_axis(c, "axis", x);
  const std::int64_t n = known_size(c, "axis", x, axis);
  if (c.has("num") && static_cast<std::int64_t>(c.number("num")) != n)
    refuse(c, "num", "it must be the axis's size, " + std::to_string(n));
  std::vector<Output> parts;
  for (std::int64_t i = 0; i < n; ++i) parts.push_back(drop_axis(slice(x, axis, i, i + 1), axis, c.where));
  return parts;
}

// tf.nn.moments: the mean, and the mean of squares about it (held constant); synchronized,
// one replica's all-reduced form (a DataParallel of several processes refuses it:
// OpLayerImpl::data_parallel_refusal).
std::vector<Output> moments(C c) {
  const Output x = c.arg(0);
  auto axes = c.axes("axes");
  if (!axes) refuse(c, "axes", "a list of axes is needed");
  for (auto& a : *axes) a = normalize_axis(a, x.shape().rank(), c.where);
  const ops::Moments m = ops::moments(x, *axes, c.flag("keepdims"), c.flag("synchronized"));
  return {m.mean, m.variance};
}

// tril keeps column − row <= k, triu column − row >= k.
Output triangle(C c, bool lower) {
  const Output x = c.arg(0);
  if (rank_of(x) < 2) throw ValueError(c.where + ": needs at least 2 axes, got " + x.shape().to_string());
  const auto k = static_cast<float>(c.has("k") ? c.number("k") : 0.0);
  const Output d = ops::column_minus_row(x), bound = ops::constant(c.graph, k);
  const Output keep = lower ? ops::less_equal(d, bound) : ops::greater_equal(d, bound);
  return ops::where(keep, x, ops::zeros_like(x));
}

// A permutation moving `axis` last, and its inverse.
std::vector<std::int64_t> axis_last(int rank, int axis) {
  std::vector<std::int64_t> perm;
  for (int a = 0; a < rank; ++a)
    if (a != axis) perm.push_back(a);
  perm.push_back(axis);
  return perm;
}
std::vector<std::int64_t> inverse(const std::vector<std::int64_t>& perm) {
  std::vector<std::int64_t> back(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) back[static_cast<std::size_t>(perm[i])] = static_cast<std::int64_t>(i);
  return back;
}

}  // namespace

// x's elements at `indices` along `axis` (negative ones from the end): per index, x where its
// one-hot row has its 1, 0 elsewhere (so an inf or NaN elsewhere stays out), summed; the other
// axes broadcast as NumPy's.
Output gather_along(C c, Output x, Output indices, int axis) {
  const std::int64_t n = known_size(c, "axis", x, axis);
  if (rank_of(indices) != rank_of(x))
    throw ValueError(c.where + ": indices " + indices.shape().to_string() + " need x's rank, " + x.shape().to_string());
  const auto perm = axis_last(rank_of(x), axis);
  Output i = ops::transpose(ops::cast(indices, DType::float32), perm);
  i = ops::where(ops::less(i, ops::constant(c.graph, 0.f)), ops::add(i, static_cast<float>(n)), i);
  const Output rows = ops::one_hot(i, n);                                  // (..., m, n)
  const Output values = ops::expand_dims(ops::transpose(x, perm), rank_of(x) - 1);  // (..., 1, n)
  const Output picked = ops::where(rows, values, ops::constant(c.graph, 0.f));
  return ops::transpose(ops::reduce_sum(picked, {rank_of(x)}, false), inverse(perm));
}

Output sort_along(C c, Output x, int axis) { return gather_along(c, x, ops::argsort(x, axis), axis); }

namespace {

Output take_along_axis(C c) {
  const Output x = c.arg(0);
  return gather_along(c, x, c.arg(1), one_axis(c, "axis", x));
}

// The values of x sorted along `axis`: x gathered at the positions argsort gives (so that
// each value's gradient goes back to where it came from).
Output sort(C c) {
  const Output x = c.arg(0);
  return sort_along(c, x, one_axis(c, "axis", x));
}

// The k largest along the last axis, largest first (the earlier of equal ones first), and
// their positions (int32).
std::vector<Output> top_k(C c) {
  const Output x = c.arg(0);
  const int axis = rank_of(x) - 1;
  const std::int64_t n = known_size(c, "k", x, axis);
  const auto k = static_cast<std::int64_t>(c.number("k"));
  if (k < 1 || k > n) refuse(c, "k", "1 to the last axis's size, " + std::to_string(n));
  if (c.has("sorted") && !c.flag("sorted")) refuse(c, "sorted", "TensorFlow leaves the order of sorted=False open");
  const Output positions = slice(ops::argsort(x, axis, true), axis, 0, k);
  return {gather_along(c, x, positions, axis), positions};
}

// Zeros of a static shape: a scalar reshaped to ones and repeated along each axis.
Output zeros_of_shape(Graph& g, const std::vector<std::int64_t>& dims) {
  Output z = ops::reshape(ops::constant(g, 0.f), std::vector<std::int64_t>(dims.size(), 1));
  for (std::size_t a = 0; a < dims.size(); ++a)
    if (dims[a] > 1) z = ops::concat(std::vector<Output>(static_cast<std::size_t>(dims[a]), z), static_cast<int>(a));
  return z;
}

Output broadcast_to(C c) {
  const auto shape = c.axes("shape");
  if (!shape) refuse(c, "shape", "a shape is needed");
  for (auto d : *shape)
    if (d < 1) refuse(c, "shape", "every size must be given, and at least 1");
  return ops::add(c.arg(0), zeros_of_shape(c.graph, *shape));
}

// Rows of num_classes with a 1 at each index, the new axis at `axis`. sparse=True: Keras's
// tf.SparseTensor holds these values; Strata's tensors are dense.
Output one_hot_at(C c, Output x) {
  const auto classes = static_cast<std::int64_t>(c.number("num_classes"));
  const Output rows = ops::one_hot(x, classes);
  const int rank = rank_of(rows);
  const int axis = axis_attribute(c, "axis", -1, rank);
  if (axis == 0) refuse(c, "axis", "the one-hot axis cannot come before the batch");
  return axis == rank - 1 ? rows : ops::transpose(rows, inverse(axis_last(rank, axis)));
}

// one_hot, then the largest along axis 1 (axis 0 for a vector), as Keras's multi_hot.
Output multi_hot(C c) {
  const Output x = c.arg(0);
  const Output rows = one_hot_at(c, x);
  return with_dtype(c, ops::reduce_max(rows, {rank_of(x) > 1 ? 1 : 0}, false));
}

// hstack joins along axis 1 (0 for vectors), vstack along 0, dstack along 2 (a matrix
// gaining a last axis of 1 first).
Output stack_along(C c, int axis) {
  std::vector<Output> xs = c.args.at(0);
  for (Output& x : xs) {
    if (axis == 2 && rank_of(x) == 2) x = ops::expand_dims(x, 2);
    if (rank_of(x) <= axis && !(axis == 1 && rank_of(x) == 1))
      throw ValueError(c.where + ": input " + x.shape().to_string() + " has too few axes");
  }
  return ops::concat(xs, axis == 1 && rank_of(xs.at(0)) == 1 ? 0 : axis);
}

// NumPy's rot90: k quarter turns from axes[0] towards axes[1]. Keras's TensorFlow backend
// computes it only for the last two axes, in order (it leaves them last), and for k = 2 or 3
// only on square ones (it reshapes (w, h) to (h, w) between turns): other cases are refused.
Output rot90(C c) {
  Output x = c.arg(0);
  const auto axes = c.axes("axes").value_or(std::vector<std::int64_t>{0, 1});
  if (axes.size() != 2) refuse(c, "axes", "two axes are needed");
  const int a0 = static_cast<int>(normalize_axis(axes[0], x.shape().rank(), c.where));
  const int a1 = static_cast<int>(normalize_axis(axes[1], x.shape().rank(), c.where));
  if (a0 == a1) refuse(c, "axes", "two different axes are needed");
  const int k = ((static_cast<int>(c.has("k") ? c.number("k") : 1) % 4) + 4) % 4;
  if (k != 0 && (a0 != rank_of(x) - 2 || a1 != rank_of(x) - 1))
    refuse(c, "axes", "the last two axes, in order, are: Keras's TensorFlow backend moves others last");
  if (k >= 2 && x.shape().dims()[static_cast<std::size_t>(a0)] != x.shape().dims()[static_cast<std::size_t>(a1)])
    refuse(c, "k", "k = 2 or 3 on square axes only: Keras's TensorFlow backend scrambles others");
  std::vector<std::int64_t> swap;
  for (int a = 0; a < rank_of(x); ++a) swap.push_back(a);
  std::swap(swap[static_cast<std::size_t>(a0)], swap[static_cast<std::size_t>(a1)]);
  if (k == 1) return ops::transpose(ops::reverse(x, a1), swap);
  if (k == 2) return ops::reverse(ops::reverse(x, a0), a1);
  if (k == 3) return ops::reverse(ops::transpose(x, swap), a1);
  return x;
}

// diag(x, k) and diagflat(x, k): a vector (the batch's among them) onto diagonal k of a square
// matrix, or a matrix's diagonal k, as tf.linalg.diag and Keras's diagonal give them; the
// matrix axes include the batch axis, so their sizes are the run's (core/ops/diag_ops.h).
std::int64_t diag_offset(C c) {
  const double k = c.has("k") ? c.number("k") : 0.0;
  if (std::floor(k) != k || std::fabs(k) > 1e9) refuse(c, "k", "a whole number is needed");
  return static_cast<std::int64_t>(k);
}

Output diag(C c) {
  const Output x = c.arg(0);
  if (rank_of(x) == 1) return ops::diag_matrix(x, diag_offset(c));
  if (rank_of(x) == 2) return ops::diag_part(x, diag_offset(c));
  throw ValueError(c.where + ": x must be 1-D or 2-D (the batch axis first), got " + x.shape().to_string());
}

// The offset diagonal of axes axis1 and axis2, as a last axis: the square block the
// diagonal crosses, times the identity, summed along its columns.
Output diagonal(C c) {
  const Output x = c.arg(0);
  const int rank = rank_of(x);
  const int a1 = axis_attribute(c, "axis1", 0, rank), a2 = axis_attribute(c, "axis2", 1, rank);
  if (a1 == a2) refuse(c, "axis2", "two different axes are needed");
  const std::int64_t rows = known_size(c, "axis1", x, a1), cols = known_size(c, "axis2", x, a2);
  const auto offset = static_cast<std::int64_t>(c.has("offset") ? c.number("offset") : 0);
  const std::int64_t r0 = std::max<std::int64_t>(0, -offset), c0 = std::max<std::int64_t>(0, offset);
  const std::int64_t length = std::min(rows - r0, cols - c0);
  if (length <= 0) refuse(c, "offset", "the diagonal must have elements");
  std::vector<std::int64_t> perm;
  for (int a = 0; a < rank; ++a)
    if (a != a1 && a != a2) perm.push_back(a);
  perm.push_back(a1);
  perm.push_back(a2);
  Output block = ops::transpose(x, perm);
  block = slice(slice(block, rank - 2, r0, r0 + length), rank - 1, c0, c0 + length);
  const Output on_diagonal = ops::equal(ops::column_minus_row(block), ops::constant(c.graph, 0.f));
  return ops::reduce_sum(ops::where(on_diagonal, block, ops::zeros_like(block)), {rank - 1}, false);
}

// np.pad: pad_width as one (before, after) per axis, one pair for every axis, or one count;
// mode constant (constant_values, 0 when None), reflect (the edge not repeated) or symmetric
// (repeated). The batch axis is not padded.
Output pad(C c) {
  Output x = c.arg(0);
  const int rank = rank_of(x);
  std::vector<std::vector<std::int64_t>> widths;
  if (const auto* rows = c.rows("pad_width")) {
    widths = *rows;
  } else if (const auto w = c.axes("pad_width")) {
    widths = {*w};
  } else {
    refuse(c, "pad_width", "widths are needed");
  }
  if (widths.size() == 1) widths.assign(static_cast<std::size_t>(rank), widths[0]);
  for (auto& w : widths) {
    if (w.size() == 1) w.push_back(w[0]);
    if (w.size() != 2 || w[0] < 0 || w[1] < 0) refuse(c, "pad_width", "pairs of counts of 0 or more");
  }
  if (static_cast<int>(widths.size()) != rank) refuse(c, "pad_width", "one pair per axis");
  if (widths[0][0] != 0 || widths[0][1] != 0) refuse(c, "pad_width", "the batch axis is not padded");
  const std::string mode = c.has("mode") ? c.text("mode") : "constant";
  const auto given = c.kwargs.find("constant_values");
  const bool fill = given != c.kwargs.end() && !std::holds_alternative<std::monostate>(given->second);
  if (fill && mode != "constant") refuse(c, "mode", "constant_values goes with mode 'constant' only");
  if (mode == "constant") {
    std::vector<std::int64_t> before, after;
    for (const auto& w : widths) {
      before.push_back(w[0]);
      after.push_back(w[1]);
    }
    const Output padded = ops::pad(x, before, after);
    if (!fill) return padded;
    const ConfigValue& v = given->second;
    if (!std::holds_alternative<double>(v) && !std::holds_alternative<std::int64_t>(v))
      throw NotImplementedError(c.where + ": constant_values must be one number (one per axis is not supported)");
    const double value =
        std::holds_alternative<double>(v) ? std::get<double>(v) : static_cast<double>(std::get<std::int64_t>(v));
    // padded + value · (1 − the padded ones): the input's elements untouched
    const Output outside = ops::sub(1.0f, ops::pad(ops::ones_like(x), before, after));
    return ops::add(padded, ops::mul(outside, static_cast<float>(value)));
  }
  if (mode != "reflect" && mode != "symmetric") refuse(c, "mode", "constant, reflect and symmetric are");
  const std::int64_t skip = mode == "reflect" ? 1 : 0;  // reflect leaves the edge out
  for (int a = 1; a < rank; ++a) {
    const std::int64_t before = widths[static_cast<std::size_t>(a)][0], after = widths[static_cast<std::size_t>(a)][1];
    if (before == 0 && after == 0) continue;
    const std::int64_t n = known_size(c, "pad_width", x, a);
    if (before > n - skip || after > n - skip)
      refuse(c, "pad_width", mode + " pads at most " + std::to_string(n - skip) + " on axis " + std::to_string(a));
    std::vector<Output> parts;
    if (before > 0) parts.push_back(ops::reverse(slice(x, a, skip, skip + before), a));
    parts.push_back(x);
    if (after > 0) parts.push_back(ops::reverse(slice(x, a, n - skip - after, n - skip), a));
    x = ops::concat(parts, a);
  }
  return x;
}

// tf.nn.depth_to_space (or space_to_depth) on (batch, h, w, c), channels_first moved to and
// from channels_last as Keras's TensorFlow backend: (h, w, b·b·c) as (h, w, b, b, c), the
// block's rows and columns interleaved into h and w (and back).
Output depth_and_space(C c, bool to_space) {
  Output x = c.arg(0);
  if (rank_of(x) != 4) throw ValueError(c.where + ": needs a 4-D input, got " + x.shape().to_string());
  const bool first = c.has("data_format") && c.text("data_format") == "channels_first";
  if (c.has("data_format") && !first && c.text("data_format") != "channels_last")
    refuse(c, "data_format", "channels_last and channels_first are");
  if (first) x = ops::transpose(x, {0, 2, 3, 1});
  const auto b = static_cast<std::int64_t>(c.number("block_size"));
  const std::int64_t h = known_size(c, "data_format", x, 1), w = known_size(c, "data_format", x, 2);
  const std::int64_t ch = known_size(c, "data_format", x, 3);
  if (b < 2) refuse(c, "block_size", "a block of 2 or more");
  if (to_space) {
    if (ch % (b * b) != 0) refuse(c, "block_size", "the channels must divide by its square");
    const std::int64_t out = ch / (b * b);
    x = ops::transpose(ops::reshape(x, {-1, h, w, b, b, out}), {0, 1, 3, 2, 4, 5});
    x = ops::reshape(x, {-1, h * b, w * b, out});
  } else {
    if (h % b != 0 || w % b != 0) refuse(c, "block_size", "the height and width must divide by it");
    x = ops::transpose(ops::reshape(x, {-1, h / b, b, w / b, b, ch}), {0, 1, 3, 2, 4, 5});
    x = ops::reshape(x, {-1, h / b, w / b, b * b * ch});
  }
  return first ? ops::transpose(x, {0, 3, 1, 2}) : x;
}

}  // namespace

const std::map<std::string, OpFn>& array_ops() {
  static const std::map<std::string, OpFn> t = {
      {"Slice", slice_op},
      {"Pad", pad},
      {"Tril", [](C c) { return triangle(c, true); }},
      {"Triu", [](C c) { return triangle(c, false); }},
      {"TakeAlongAxis", take_along_axis},
      {"Sort", sort},
      {"Argsort", [](C c) { return ops::argsort(c.arg(0), one_axis(c, "axis", c.arg(0))); }},
      {"BroadcastTo", broadcast_to},
      {"OneHot", [](C c) { return with_dtype(c, one_hot_at(c, c.arg(0))); }},
      {"MultiHot", multi_hot},
      {"Hstack", [](C c) { return stack_along(c, 1); }},
      {"Vstack", [](C c) { return stack_along(c, 0); }},
      {"Dstack", [](C c) { return stack_along(c, 2); }},
      {"Fliplr", [](C c) { return ops::reverse(c.arg(0), 1); }},
      {"Flipud", [](C c) { return ops::reverse(c.arg(0), 0); }},
      {"Rot90", rot90},
      {"Diagonal", diagonal},
      {"Diag", diag},
      {"Diagflat", [](C c) { return ops::diag_matrix(ops::reshape(c.arg(0), {-1}), diag_offset(c)); }},
      {"Trace",
       [](C c) {
         const Output d = diagonal(c);
         return ops::reduce_sum(d, {rank_of(d) - 1}, false);
       }},
      {"EmptyLike", [](C c) { return with_dtype(c, ops::zeros_like(c.arg(0))); }},
      {"Size",  // int32, as Keras; the batch's size counted when the model runs
       [](C c) {
         std::vector<std::int64_t> all;
         for (int a = 0; a < rank_of(c.arg(0)); ++a) all.push_back(a);
         return ops::cast(ops::reduce_sum(ops::ones_like(c.arg(0)), all, false), DType::int32);
       }},
      {"Ravel", [](C c) { return ops::reshape(c.arg(0), {-1}); }},
      // x's rank, an int32 scalar, as Keras's TensorFlow backend computes it (its symbolic
      // result claims shape (rank,); a model using it as a scalar is what Keras runs)
      {"Ndim",
       [](C c) {
         return ops::cast(ops::constant(c.graph, static_cast<float>(rank_of(c.arg(0)))), DType::int32);
       }},
      {"DepthToSpace", [](C c) { return depth_and_space(c, true); }},
      {"SpaceToDepth", [](C c) { return depth_and_space(c, false); }},
  };
  return t;
}

const std::map<std::string, MultiOpFn>& multi_output_ops() {
  static std::map<std::string, MultiOpFn> t = {
      {"Split", [](C c) { return split_parts(c, false); }},
      {"ArraySplit", [](C c) { return split_parts(c, true); }},
      // vsplit along axis 0 (the batch's: equal parts), hsplit along 1 (0 for vectors), dsplit
      // along 2.
      {"Vsplit", [](C c) { return split_parts(c, false, 0); }},
      {"Hsplit", [](C c) { return split_parts(c, false, rank_of(c.arg(0)) == 1 ? 0 : 1); }},
      {"Dsplit", [](C c) { return split_parts(c, false, 2); }},
      {"Unstack", unstack},
      {"Moments", moments},
      {"TopK", top_k},
      {"Slogdet", slogdet},
  };
  static const bool merged = [] {
    for (const auto* more : {&signal_multi_output_ops(), &bin_multi_output_ops(), &decomposition_multi_output_ops(),
                              &grid_multi_output_ops(), &ctc_multi_output_ops()})
      for (const auto& entry : *more) t.emplace(entry.first, entry.second);
    return true;
  }();
  (void)merged;
  return t;
}

}  // namespace strata::layers::op_detail
