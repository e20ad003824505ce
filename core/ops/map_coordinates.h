// keras.ops.image.map_coordinates (issue #38) as Keras's TensorFlow backend computes it:
// inputs of any rank sampled at coordinates (rank, ...), whose first row indexes the inputs'
// first axis (in a functional model the batch's, whose size is the run's). Per axis a
// coordinate gives its nearest index (order 0: rounded half to even) or its two neighbours
// weighed linearly (order 1); the indices are moved inside by fill_mode (constant: outside
// ones take fill_value instead; nearest: clipped; wrap: modulo the size; mirror and reflect:
// folded as Keras folds them, which can leave an index one past the end, an error then as
// TensorFlow's gather fails). The corners are summed in Keras's order, in float32. The CPU runs
// it (core/cpu/kernels/map_coordinates.cc); no CUDA kernel is written, so a Program placed on
// a GPU refuses it by name.
#pragma once

#include <string>

#include "core/graph.h"

namespace strata::ops {

// inputs float32 of rank r, coordinates float32 (r, ...): the result is coordinates.shape[1:].
// Its gradient reaches the inputs (each corner's weight times the incoming gradient, added
// at its index); none reaches the coordinates.
Output map_coordinates(Output inputs, Output coordinates, int order, const std::string& fill_mode,
                       double fill_value);

// map_coordinates' gradient to its inputs: zeros shaped like `inputs` with dy's values times
// the corners' weights added at their indices. Not differentiable.
Output map_coordinates_adjoint(Output dy, Output inputs, Output coordinates, const Attrs& attrs);

}  // namespace strata::ops
