// Builders for the fused recurrent ops (core/ops/rnn_ops.cc describes them).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// Outputs: y (B,T,H) in processing order, last h, last c (zeros unless LSTM), workspace.
// `mask` may be an invalid Output (no mask). Attrs: cell ("simple_rnn", "lstm", "gru"),
// activation, recurrent_activation, reset_after, go_backwards, input_in_processing_order,
// zero_output_for_mask, dropout, recurrent_dropout, seed.
std::vector<Output> rnn_sequence(Output x, Output h0, Output c0, Output kernel, Output recurrent_kernel, Output bias,
                                 Output mask, const Attrs& attrs);
// Zeros of shape (x's batch, units): the default initial state.
Output rnn_zero_state(Output x, std::int64_t units);

}  // namespace strata::ops
