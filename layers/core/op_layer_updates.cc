// keras.ops.slice_update (issue #38): inputs with a block replaced by updates at constant
// start indices, composed from graph ops: updates padded to the inputs' shape, and a mask of
// the block (ones padded alike) choosing them. The block spans the whole batch axis (start 0,
// updates with the batch axis): its size is the run's. And keras.ops.scatter: values summed
// into zeros of a given shape at their indices (tf.scatter_nd), through one-hot rows; and
// keras.ops.scatter_update, whose indices may name the batch axis too: an op of its own
// (core/ops/scatter_update.h).
#include <algorithm>
#include <cmath>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "core/ops/one_hot.h"
#include "core/ops/scatter_update.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output slice_update(C c) {
  const Output x = c.arg(0), updates = c.arg(2);
  const OpArgument& starts = c.arguments.at(1);
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  if (starts.kind != OpArgument::Kind::integers || starts.values.size() != rank ||
      std::any_of(starts.values.begin(), starts.values.end(), [](double v) { return std::isnan(v); }))
    throw NotImplementedError(c.where + ": start_indices must be a list of one integer per axis of " +
                              x.shape().to_string());
  if (static_cast<std::size_t>(updates.shape().rank()) != rank)
    throw ValueError(c.where + ": updates " + updates.shape().to_string() + " for inputs " + x.shape().to_string());
  if (starts.values[0] != 0 || updates.shape().dims()[0] != kUnknownDim)
    throw NotImplementedError(c.where + ": updates must span the batch axis (start 0, updates of the batch's size, " +
                              "a tensor of the model), got updates " + updates.shape().to_string());
  std::vector<std::int64_t> before(rank, 0), after(rank, 0);
  for (std::size_t a = 1; a < rank; ++a) {
    const auto begin = static_cast<std::int64_t>(starts.values[a]);
    const std::int64_t n = x.shape().dims()[a], size = updates.shape().dims()[a];
    if (n == kUnknownDim || size == kUnknownDim || begin < 0 || begin + size > n)
      throw ValueError(c.where + ": updates " + updates.shape().to_string() + " at " + std::to_string(begin) +
                       " along axis " + std::to_string(a) + " do not fit in " + x.shape().to_string());
    before[a] = begin;
    after[a] = n - begin - size;
  }
  const Output block = ops::pad(ops::ones_like(updates), before, after);
  return ops::where(block, ops::pad(updates, before, after), x);
}

// tf.scatter_nd(indices, values, shape): indices (..., depth) name elements (depth = rank of
// shape) or slices (fewer) of the result, values (..., shape[depth:]) go there, and values
// named twice add. Each index row becomes its flat position's one-hot row, and the result is
// those rows' transpose times the values, so the values' gradient is their gather back. An
// index outside the shape is a ValueError when the model runs on the CPU, as TensorFlow's CPU
// kernel raises (ops::checked_indices); on a GPU it adds nothing, as TensorFlow's GPU kernel
// drops it.
Output scatter(C c) {
  const Output values = c.arg(1);
  const auto shape = c.axes("shape");
  if (!shape || shape->empty()) throw ValueError(c.where + ": needs 'shape'");
  for (std::int64_t d : *shape)
    if (d <= 0) refuse(c, "shape", "positive sizes are needed");
  const int rank = rank_of(c.arg(0));
  if (rank < 1)
    throw ValueError(c.where + ": indices must have an index depth axis, got " + c.arg(0).shape().to_string());
  const std::int64_t depth = known_size(c, "indices", c.arg(0), rank - 1);
  if (depth < 1 || depth > static_cast<std::int64_t>(shape->size()))
    throw ValueError(c.where + ": indices of depth " + std::to_string(depth) + " into shape of rank " +
                     std::to_string(shape->size()));
  const Output indices = ops::checked_indices(c.arg(0), *shape);
  std::int64_t positions = 1, slice_size = 1;
  for (std::int64_t a = 0; a < static_cast<std::int64_t>(shape->size()); ++a)
    (a < depth ? positions : slice_size) *= (*shape)[static_cast<std::size_t>(a)];
  // values must be indices.shape[:-1] + shape[depth:]
  const Shape& vs = values.shape();
  const Shape& is = indices.shape();
  bool fits = vs.rank() == rank - 1 + static_cast<int>(shape->size()) - static_cast<int>(depth);
  for (int a = 0; fits && a < vs.rank(); ++a) {
    const std::int64_t want = a < rank - 1 ? is[a] : (*shape)[static_cast<std::size_t>(depth + a - (rank - 1))];
    fits = vs[a] == want || vs[a] == kUnknownDim || want == kUnknownDim;
  }
  if (!fits)
    throw ShapeError(c.where + ": values " + vs.to_string() + " do not fit indices " + is.to_string() +
                     " into shape " + Shape(*shape).to_string());
  // The flat position of each index row, or −1 (no one-hot bit) outside the shape.
  const Output at = ops::cast(indices, DType::float32);
  Output flat, inside;
  std::int64_t stride = positions;
  for (std::int64_t k = 0; k < depth; ++k) {
    const std::int64_t size = (*shape)[static_cast<std::size_t>(k)];
    stride /= size;
    const Output component = drop_axis(slice(at, rank - 1, k, k + 1), rank - 1, c.where);
    const Output ok = ops::mul(ops::greater_equal(component, scalar(c, 0.f)),
                               ops::less(component, scalar(c, static_cast<float>(size))));
    const Output term = ops::mul(component, static_cast<float>(stride));
    flat = flat.valid() ? ops::add(flat, term) : term;
    inside = inside.valid() ? ops::mul(inside, ok) : ok;
  }
  const Output position = ops::where(inside, flat, ops::fill_like(flat, -1.f));
  const Output rows = ops::reshape(ops::one_hot(ops::cast(position, DType::int32), positions), {-1, positions});
  const Output spread = ops::reshape(values, {-1, slice_size});
  const Output summed = ops::matmul(ops::transpose(rows, {1, 0}), spread);  // (positions, slice)
  return ops::reshape(summed, *shape);
}

// scatter_update(inputs, indices, updates, reduction): indices and updates from NumPy
// constants or the model's tensors. Updates are of the inputs' dtype (TensorFlow's op takes
// no other): a NumPy constant's, which Strata holds as float32, is cast to it.
Output scatter_update(C c) {
  const std::string reduction = c.has("reduction") ? c.text("reduction") : "";
  if (reduction != "" && reduction != "add" && reduction != "max" && reduction != "min" && reduction != "mul")
    refuse(c, "reduction", "Keras's are None, 'add', 'max', 'min' and 'mul'");
  const Output x = c.arg(0);
  Output updates = c.arg(2);
  if (c.arguments.at(2).kind == OpArgument::Kind::array && updates.dtype() != x.dtype())
    updates = ops::cast(updates, x.dtype());
  return ops::scatter_update(x, c.arg(1), updates, reduction);
}

}  // namespace

const std::map<std::string, OpFn>& update_ops() {
  static const std::map<std::string, OpFn> t = {{"SliceUpdate", slice_update},
                                                 {"Scatter", scatter},
                                                 {"ScatterUpdate", scatter_update}};
  return t;
}

}  // namespace strata::layers::op_detail
