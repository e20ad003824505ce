// Ops whose result's size depends on the values, not only on the shapes (keras.ops.nonzero
// and keras.ops.bincount, issue #38): their shape inference leaves that dim None even for
// fed shapes, and their kernels size it (core/sized_outputs.h), so the steps after them see
// the size each run gives. The CPU runs them (core/cpu/kernels/data_sized.cc); no CUDA
// kernel is written, so a Program placed on a GPU refuses them by name. Not differentiable
// (their results are integers).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// NumPy's nonzero: per axis of x (float32, int32 or int64), the int32 coordinates (n,) of its
// n nonzero elements in row-major order (NaN is nonzero, -0 is zero), as Keras's TensorFlow
// backend gives them (tf.where's).
std::vector<Output> nonzero(Output x);

// TensorFlow's bincount along the last axis, as keras.ops.bincount (no weights): x of rank 1
// (n,) gives (length,), of rank 2 (rows, n) one row of counts per row (rows, length), int32;
// length = max(minlength, the largest value + 1) over all of x. x is int32, int64 or float32
// (cast to int32 by truncation, as Keras's backend casts it); a negative value is a ValueError
// when the op runs, as TensorFlow's.
Output bincount(Output x, std::int64_t minlength);

}  // namespace strata::ops
