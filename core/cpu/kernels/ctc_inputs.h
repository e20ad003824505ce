// What the CPU kernels of the CTC ops (core/ops/ctc_ops.h) read from their inputs and attrs,
// checked when the op runs: the blank class against the logits' classes, and each sample's
// decoded length (whole numbers through core/cpu/kernels/numeric_elements.h). The loss and the
// greedy decoder (ctc.cc) and the beam search (ctc_beam_search.cc) share them, so a bad value
// reads the same from each: the op, its node's name, the sample and the value.
#pragma once

#include <cstdint>
#include <string>

#include "core/cpu/kernels/numeric_elements.h"
#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu::ctc_inputs {

inline std::string where_of(const KernelContext& ctx) { return ctx.node.op + " '" + ctx.node.name + "'"; }

// The blank class (the "blank" attr, negative from the end), checked against the classes the
// logits have when the op runs.
inline std::int64_t blank_of(const KernelContext& ctx, std::int64_t classes) {
  const auto blank = ctx.node.attrs.get<std::int64_t>("blank");
  if (classes < 1 || blank < -classes || blank >= classes)
    throw ValueError(where_of(ctx) + ": blank (mask_index) " + std::to_string(blank) + " is not one of the " +
                     std::to_string(classes) + " classes of the logits");
  return blank < 0 ? blank + classes : blank;
}

// Sample b's sequence length for a decoder, within [0, steps].
inline std::int64_t sequence_length_of(const Tensor& lengths, std::int64_t b, std::int64_t steps,
                                       const std::string& where) {
  const std::int64_t n = cpu::whole_number(lengths, b, where, "sequence_length");
  if (n < 0 || n > steps)
    throw ValueError(where + ": sequence_length of sample " + std::to_string(b) + " is " + std::to_string(n) +
                     ", outside [0, " + std::to_string(steps) + "]");
  return n;
}

}  // namespace strata::cpu::ctc_inputs
