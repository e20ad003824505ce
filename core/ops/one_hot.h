// one_hot: class indices (int32, int64 or whole floats) of any shape as float32 rows of
// `num_classes` with a 1 at the index, as keras.ops.one_hot; an index outside
// [0, num_classes) gives a row of zeros, as Keras's does.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph.h"

namespace strata::ops {

Output one_hot(Output indices, std::int64_t num_classes);

// Keras's encode_categorical_inputs (the preprocessing layers' output modes) on integer
// indices, as float32:
//   "one_hot":   one row of `depth` per index; a last axis of size 1 is dropped first
//                ((batch, 1) -> (batch, depth));
//   "multi_hot": 1 at every index found along the last axis (rank 0 or 1: one row)
//                ((batch, n) -> (batch, depth), (n,) -> (depth,));
//   "count":     how many times each index occurs along the last axis.
// Indices outside [0, depth) add nothing. Not differentiable.
Output categorical_encode(Output indices, std::int64_t depth, const std::string& mode);

}  // namespace strata::ops
