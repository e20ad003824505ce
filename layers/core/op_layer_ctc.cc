// keras.ops.ctc_loss and keras.ops.ctc_decode (issue #38) on the CTC ops (core/ops/ctc_ops.h):
// the loss per sample, with its gradient to the logits, and the greedy decoding as Keras's
// TensorFlow backend gives it: labels (1, batch, steps) int32 padded with -1 (one path) and
// scores (batch, 1), or TensorFlow's beam search: labels (top_paths, batch, steps) and their
// log probabilities (batch, top_paths).
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

// A whole number argument at least 1, or its default.
std::int64_t count_of(C c, const char* key, std::int64_t default_value) {
  if (!c.has(key)) return default_value;
  const double v = c.number(key);
  if (std::floor(v) != v || v < 1 || v > (1 << 20)) refuse(c, key, "a whole number from 1 to 2^20 is needed");
  return static_cast<std::int64_t>(v);
}

std::vector<Output> ctc_decode(C c) {
  const std::string strategy = c.has("strategy") ? c.text("strategy") : "greedy";
  if (strategy != "greedy" && strategy != "beam_search") refuse(c, "strategy", "Keras's are 'greedy' and 'beam_search'");
  Output logits = c.arg(0);
  if (logits.dtype() != DType::float32) logits = ops::cast(logits, DType::float32);
  if (rank_of(logits) != 3)
    throw ValueError(c.where + ": inputs must be (batch, steps, classes), got " + logits.shape().to_string());
  const std::int64_t steps = known_size(c, "inputs", logits, 1);
  if (strategy == "greedy") {
    const bool merge_repeated = !c.has("merge_repeated") || c.flag("merge_repeated");
    const ops::CtcDecoded d = ops::ctc_greedy_decode(logits, c.arg(1), merge_repeated, mask_index_of(c, -1));
    return {ops::reshape(d.labels, {1, -1, steps}), d.scores};
  }
  // Beam search: Keras's TensorFlow backend moves the mask_index column last (TensorFlow's
  // blank) and back, which for -1 slices an empty column (inputs[..., -1:0]) and decodes
  // 2·classes − 1 of them, labels beyond the classes among its results; None keeps the
  // last class as the blank. merge_repeated is not passed on (TensorFlow 2's decoder never
  // merges), as in Keras.
  const std::int64_t blank = mask_index_of(c, -1);
  if (c.has("mask_index") && blank == -1)
    refuse(c, "mask_index", "-1 with strategy='beam_search' is not decoded (Keras's TensorFlow backend moves an "
                            "empty column for it and decodes twice the classes); None means the last class");
  const ops::CtcDecoded d =
      ops::ctc_beam_search_decode(logits, c.arg(1), count_of(c, "beam_width", 100), count_of(c, "top_paths", 1), blank);
  return {d.labels, d.scores};
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
