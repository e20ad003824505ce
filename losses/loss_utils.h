// Shape and reduction helpers shared by losses and metrics, after Keras 3's
// keras/src/losses/loss.py. Everything here adds graph nodes; nothing runs on the host.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "losses/loss.h"

namespace strata::losses {

constexpr float kEpsilon = 1e-7f;  // Keras's backend.epsilon()

// y_true and y_pred cast to float32 and brought to one rank, as Keras's losses begin.
std::pair<Output, Output> float32_of_same_rank(Output y_true, Output y_pred);

// Keras's squeeze_or_expand_to_same_rank: when the ranks differ by one and the longer
// one ends in a dimension of 1, squeeze it (or, when the other is rank 1, expand the
// other instead). Otherwise returns both unchanged.
std::pair<Output, Output> squeeze_or_expand_to_same_rank(Output x1, Output x2);

// x without its trailing dimension of 1 ((B, 1) -> (B,)).
Output squeeze_last(Output x);

// Keras's reduce_weighted_values: weights the values (sample_weight may be invalid:
// unweighted) and reduces them; sum_over_batch_size divides by the element count.
Output reduce_weighted_values(Output values, Output sample_weight, Reduction reduction);

// Axes [from, to) as a reduction list.
std::vector<std::int64_t> axes_range(int from, int to);

}  // namespace strata::losses
