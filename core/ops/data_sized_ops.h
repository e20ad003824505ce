// Ops whose result's size depends on the values, not only on the shapes (keras.ops.nonzero,
// keras.ops.bincount and keras.ops.unique, issue #38): their shape inference leaves that dim None even for
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

// keras.ops.unique over the flattened x (axis None), as Keras's TensorFlow backend computes it:
// the distinct values in order of first appearance (tf.unique; 0 and -0 one value, each NaN
// its own), or ascending when `sorted` (NaNs last); with `size` >= 0 cut or padded to size
// (values with fill_value, index with 1, counts with 0, as Keras pads them). Results in this
// order, each when asked: values (n,) in x's dtype; index (n,) int32, each value's first
// position in the flattened x; inverse, x's shape, int32, each element's value's position
// among the values; counts (n,) int32.
struct UniqueOptions {
  bool sorted = true;
  bool return_index = false;
  bool return_inverse = false;
  bool return_counts = false;
  std::int64_t size = -1;  // -1: None, the run's count
  double fill_value = 0.0;
};
std::vector<Output> unique(Output x, const UniqueOptions& options);

}  // namespace strata::ops
