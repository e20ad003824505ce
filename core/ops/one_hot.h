// one_hot: class indices (int32, int64 or whole floats) of any shape as float32 rows of
// `num_classes` with a 1 at the index, as keras.ops.one_hot; an index outside
// [0, num_classes) gives a row of zeros, as Keras's does.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace strata::ops {

Output one_hot(Output indices, std::int64_t num_classes);

}  // namespace strata::ops
