// keras.ops.slice_update (issue #38): inputs with a block replaced by updates at constant
// start indices, composed from graph ops: updates padded to the inputs' shape, and a mask of
// the block (ones padded alike) choosing them. The block spans the whole batch axis (start 0,
// updates with the batch axis): its size is the run's.
#include <algorithm>

#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

Output slice_update(C c) {
  const Output x = c.arg(0), updates = c.arg(2);
  const OpArgument& starts = c.arguments.at(1);
  const auto rank = static_cast<std::size_t>(x.shape().rank());
  if (starts.kind != OpArgument::Kind::integers || starts.values.size() != rank)
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

}  // namespace

const std::map<std::string, OpFn>& update_ops() {
  static const std::map<std::string, OpFn> t = {{"SliceUpdate", slice_update}};
  return t;
}

}  // namespace strata::layers::op_detail
