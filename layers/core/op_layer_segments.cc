// keras.ops segment reductions (issue #38): segment_sum, segment_max, segment_min and
// segment_prod with num_segments given, composed from graph ops as TensorFlow's
// unsorted_segment_* compute them: data's rows (the batch) go to the segment their id names
// through one-hot rows, a segment no row names gets 0 (sum), 1 (prod) or float32's lowest /
// largest value (max / min), and an id outside [0, num_segments) drops its row.
#include <limits>

#include "core/ops.h"
#include "core/ops/one_hot.h"
#include "core/ops/scan_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

enum class SegmentReduction { sum, max, min, prod };

Output segment_reduce(C c, SegmentReduction how) {
  const Output data = c.arg(0), ids = c.arg(1);
  if (!c.has("num_segments"))
    refuse(c, "num_segments", "the number of segments must be given: otherwise the result's size depends on the data");
  if (c.flag("sorted"))
    refuse(c, "sorted", "Keras's TensorFlow backend takes num_segments only unsorted");
  const auto segments = static_cast<std::int64_t>(c.number("num_segments"));
  if (segments <= 0) refuse(c, "num_segments", "a positive count is needed");
  if (ids.dtype() == DType::float32 || ids.shape().rank() != 1)
    throw ValueError(c.where + ": segment_ids must be integers, one per row of data (rank 1), got " +
                     to_string(ids.dtype()) + " " + ids.shape().to_string());
  // (rows, segments, 1, ...): which segment each row goes to, against data's (rows, 1, ...).
  const auto rank = static_cast<std::size_t>(data.shape().rank());
  std::vector<std::int64_t> member_dims{-1, segments}, row_dims{-1, 1};
  for (std::size_t a = 1; a < rank; ++a) {
    const std::int64_t n = data.shape().dims()[a];
    if (n == kUnknownDim) throw NotImplementedError(c.where + ": data needs known sizes after its first axis");
    member_dims.push_back(1);
    row_dims.push_back(n);
  }
  const Output member = ops::reshape(ops::one_hot(ids, segments), member_dims);
  const Output rows = ops::reshape(data, row_dims);
  // Each row reaches its own segment only (where, not a product: 0 · inf would be NaN in
  // every other segment, which TensorFlow's unsorted_segment_* never touches).
  const Output in_segment = ops::greater(member, ops::constant(c.graph, 0.f));
  const Output spread = ops::mul(ops::ones_like(member), rows);
  if (how == SegmentReduction::sum) {
    return ops::reduce_sum(ops::where(in_segment, spread, ops::fill_like(spread, 0.f)), {0}, false);
  }
  if (how == SegmentReduction::prod) {
    // A product over the batch's rows, whose count is the run's: the running product down the
    // rows (cumprod, whose gradient multiplies the other factors, so zeros are exact), read
    // at the last row (the one a reversed running count of ones puts at 1).
    const Output factors = ops::where(in_segment, spread, ops::fill_like(spread, 1.f));
    const Output last = ops::equal(ops::cumsum(ops::ones_like(factors), 0, true), ops::constant(c.graph, 1.f));
    return ops::reduce_sum(ops::where(last, ops::cumprod(factors, 0), ops::zeros_like(factors)), {0}, false);
  }
  const float lowest = std::numeric_limits<float>::lowest();
  if (how == SegmentReduction::max) {
    return ops::reduce_max(ops::where(in_segment, spread, ops::fill_like(spread, lowest)), {0}, false);
  }
  const Output smallest = ops::reduce_max(ops::where(in_segment, ops::neg(spread), ops::fill_like(spread, lowest)),
                                          {0}, false);
  return ops::neg(smallest);
}

}  // namespace

const std::map<std::string, OpFn>& segment_ops() {
  static const std::map<std::string, OpFn> t = {
      {"SegmentSum", [](C c) { return segment_reduce(c, SegmentReduction::sum); }},
      {"SegmentMax", [](C c) { return segment_reduce(c, SegmentReduction::max); }},
      {"SegmentMin", [](C c) { return segment_reduce(c, SegmentReduction::min); }},
      {"SegmentProd", [](C c) { return segment_reduce(c, SegmentReduction::prod); }},
  };
  return t;
}

}  // namespace strata::layers::op_detail
