// Builders for core/ops/sequence_ops.cc: concatenation along the last axis and
// embedding lookups.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph.h"

namespace strata::ops {

// (..., a) and (..., b) -> (..., a + b).
Output concat_last(Output a, Output b);
// Rows of `table` (V, D) at integer `ids` -> ids.shape + (D). An id outside [0, V)
// throws ValueError at run time naming `layer` ("Embedding 'embedding'").
Output embedding_lookup(Output table, Output ids, const std::string& layer);
// What an embedding lookup (or its gradient) at `node` says of a token id outside
// [0, vocab) at flat `index` of its ids, naming the node's layer. The CPU kernels throw it
// as a ValueError at once; the CUDA kernels report it, and their run throws it when it
// synchronizes (core/cuda/embedding_kernels.cc).
std::string token_id_out_of_range(const Node& node, std::int64_t id, std::int64_t index, std::int64_t vocab);

// (B, F) -> (B, n, F).
Output repeat_vector(Output x, std::int64_t n);
// y (B*T, ...) viewed as (B, T, ...) with B and T taken from `like` (B, T, ...) at run time.
Output unfold_time(Output y, Output like);

}  // namespace strata::ops
