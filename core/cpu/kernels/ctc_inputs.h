// What the CPU kernels of the CTC ops (core/ops/ctc_ops.h) read from their inputs and attrs,
// checked when the op runs: whole numbers from int32, int64 or float32 tensors, the blank
// class against the logits' classes, and each sample's decoded length. The loss and the
// greedy decoder (ctc.cc) and the beam search (ctc_beam_search.cc) share them, so a bad value
// reads the same from each: the op, its node's name, the sample and the value.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/op_registry.h"

namespace strata::cpu::ctc_inputs {

inline std::string where_of(const KernelContext& ctx) { return ctx.node.op + " '" + ctx.node.name + "'"; }

// Element i of an int32, int64 or float32 tensor holding whole numbers.
inline std::int64_t whole_number(const Tensor& t, std::int64_t i, const std::string& where, const char* what) {
  switch (t.dtype()) {
    case DType::int32: return t.data<std::int32_t>()[i];
    case DType::int64: return t.data<std::int64_t>()[i];
    default: {
      const float v = t.data<float>()[i];
      if (!(std::floor(v) == v) || std::fabs(v) > 1e9f)
        throw ValueError(where + ": " + what + " must hold whole numbers, got " + std::to_string(v));
      return static_cast<std::int64_t>(v);
    }
  }
}

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
  const std::int64_t n = whole_number(lengths, b, where, "sequence_length");
  if (n < 0 || n > steps)
    throw ValueError(where + ": sequence_length of sample " + std::to_string(b) + " is " + std::to_string(n) +
                     ", outside [0, " + std::to_string(steps) + "]");
  return n;
}

}  // namespace strata::cpu::ctc_inputs
