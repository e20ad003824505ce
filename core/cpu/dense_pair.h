// Two Dense layers in a row, for one sample, on the pool's threads with one hand-off.
//
// A batch-1 Dense layer is a matrix-vector product bound by how fast the cores stream
// its weights from their caches (docs/performance.md, "What bounds the MLP's batch-1
// latency"). Split over the cores product by product, each layer pays a fork and a join
// (two core-to-core round trips) and the next layer's input comes back from the other
// core's cache. Two layers in a row pair up without either: each thread computes its own
// block of the first layer's columns (bias and relu included), and those columns are
// exactly the rows of the second layer's weights it multiplies them by. So the first
// layer's output never crosses cores, and the only hand-offs are the fork before and the
// join after, where the caller adds up the threads' partial rows of the second layer.
#pragma once

#include <cstdint>

namespace strata::cpu {

// One Dense layer of the pair: y = act(x · kernel + bias), kernel row-major
// inputs × units.
struct DenseRowLayer {
  const float* kernel = nullptr;
  const float* bias = nullptr;  // none when null
  bool relu = false;
  std::int64_t inputs = 0;
  std::int64_t units = 0;
};

// hidden = first(x) and out = second(hidden) for one row x (first.inputs floats); the
// second layer's inputs must be the first's units. Returns false, computing nothing,
// where pairing does not pay (one thread, a build without the AVX-512 matrix-vector
// kernel, layers too small to split); the caller then runs the layers one by one. `out`
// may share memory with `x` (it is written last, after the join), not with `hidden`. The
// result depends only on the shapes and the thread count, not on which threads are free.
bool dense_pair_row(const DenseRowLayer& first, const DenseRowLayer& second, const float* x, float* hidden,
                    float* out);

}  // namespace strata::cpu
