// keras.ops.ctc_loss and keras.ops.ctc_decode (issue #38) on the CTC ops (core/ops/ctc_ops.h):
// the loss per sample, with its gradient to the logits, and the greedy decoding as Keras's
// TensorFlow backend gives it: labels (1, batch, steps) int32 padded with -1 (one path) and
// scores (batch, 1). Beam search is refused by name.
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/ctc_ops.h"
#include "layers/core/op_call.h"

namespace strata::layers::op_detail {

namespace {

using C = const OpCall&;

// The blank: mask_index, a whole number; None is `none_means` (ctc_loss's TensorFlow call
// takes it as 0, ctc_decode's greedy decoder as -1, the last class).
std::int64_t mask_index_of(C c, std::int64_t none_means) {
  if (!c.has("mask_index")) return none_means;
  const double v = c.number("mask_index");
  if (std::floor(v) != v || std::fabs(v) > 1e9) refuse(c, "mask_index", "a class index (a whole number) is needed");
  return static_cast<std::int64_t>(v);
}

// ctc_loss(target, output, target_length, output_length): output the logits (batch, steps,
// classes), target the labels (batch, max_label).
Output ctc_loss(C c) {
  Output logits = c.arg(1);
  if (logits.dtype() != DType::float32) logits = ops::cast(logits, DType::float32);
  return ops::ctc_loss(c.arg(0), logits, c.arg(2), c.arg(3), mask_index_of(c, 0));
}

std::vector<Output> ctc_decode(C c) {
  const std::string strategy = c.has("strategy") ? c.text("strategy") : "greedy";
  if (strategy != "greedy") refuse(c, "strategy", "only 'greedy' is (TensorFlow's beam search is not computed)");
  Output logits = c.arg(0);
  if (logits.dtype() != DType::float32) logits = ops::cast(logits, DType::float32);
  if (rank_of(logits) != 3)
    throw ValueError(c.where + ": inputs must be (batch, steps, classes), got " + logits.shape().to_string());
  const bool merge_repeated = !c.has("merge_repeated") || c.flag("merge_repeated");
  const ops::CtcDecoded d = ops::ctc_greedy_decode(logits, c.arg(1), merge_repeated, mask_index_of(c, -1));
  const std::int64_t steps = known_size(c, "inputs", logits, 1);
  return {ops::reshape(d.labels, {1, -1, steps}), d.scores};
}

}  // namespace

const std::map<std::string, OpFn>& ctc_ops() {
  static const std::map<std::string, OpFn> t = {{"CTCLoss", ctc_loss}};
  return t;
}

const std::map<std::string, MultiOpFn>& ctc_multi_output_ops() {
  static const std::map<std::string, MultiOpFn> t = {{"CTCDecode", ctc_decode}};
  return t;
}

}  // namespace strata::layers::op_detail
