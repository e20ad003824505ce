// keras.ops.split / vsplit / hsplit into equal parts along axis 0 (issue #38), which in a
// functional model is the batch axis, whose size is the run's: `parts` outputs of (B / parts,
// ...) each, sized from the fed shape (a batch the count does not divide is a ShapeError
// then, as TensorFlow's split fails). Its gradient is the parts' gradients concatenated. The
// CPU runs it (core/cpu/kernels/batch_split.cc); no CUDA kernel is written, so a Program
// placed on a GPU refuses it by name.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

std::vector<Output> batch_split(Output x, std::int64_t parts);

}  // namespace strata::ops
