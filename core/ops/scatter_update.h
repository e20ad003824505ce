// keras.ops.scatter_update (issue #38): tf.tensor_scatter_nd_update and its reductions, whose
// indices may name any axis of the inputs (the batch's among them), and the gather it takes
// its gradients with (tf.gather_nd). indices (..., depth) name elements (depth = x's rank) or
// slices (fewer) of x; updates are indices.shape[:-1] + x.shape[depth:]. An index outside x
// is a ValueError when the op runs, as TensorFlow's CPU kernel raises. The CPU runs them
// (core/cpu/kernels/scatter_update.cc); no CUDA kernel is written for these two, so a Program
// placed on a GPU refuses them by name. And the index check keras.ops.scatter runs first
// (checked_indices), which has one.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"

namespace strata::ops {

// x with updates written at indices: reduction "" replaces (an index named twice: the later
// update wins, where TensorFlow leaves the order unspecified), "add" adds, "max" / "min" keep
// the larger / smaller, "mul" multiplies. x and updates share their dtype (float32, int32 or
// int64); indices are int32, int64 or float32 holding whole numbers. Gradients (float32, to x
// and updates) for "" and "add", as TensorFlow's; the other reductions have none in Strata
// (asking for one is a NotImplementedError naming them).
Output scatter_update(Output x, Output indices, Output updates, const std::string& reduction = "");

// indices (..., depth) as they are, each row checked when the op runs against `shape` (its
// first depth sizes): a row outside it is a ValueError naming the row, as TensorFlow's CPU
// scatter_nd raises (keras.ops.scatter's rows, before its one-hot product). The CUDA kernel
// passes them unchecked: TensorFlow's GPU scatter_nd drops such a row, and so does the one-hot
// product. Not differentiable.
Output checked_indices(Output indices, std::vector<std::int64_t> shape);

// The elements or slices of x at indices: indices.shape[:-1] + x.shape[depth:]. Not
// differentiable (scatter_update's gradient only).
Output gather_nd(Output x, Output indices);

}  // namespace strata::ops
