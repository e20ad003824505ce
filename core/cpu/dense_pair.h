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

// How a pair splits the hidden columns over the pool's threads: task 0, the caller, takes
// a little more than an equal share (it starts before the workers, which are handed their
// task across cores), the others equal blocks of whole registers. Depends only on the
// shapes and the thread count, so the results do too, not on which threads are free.
struct DensePairSplit {
  int tasks = 0;  // 0: pairing does not pay for these layers on this many threads
  std::int64_t columns = 0, caller = 0, per_worker = 0;

  explicit operator bool() const { return tasks > 0; }
  std::int64_t begin(int task) const;
  std::int64_t end(int task) const { return task + 1 == tasks ? columns : begin(task + 1); }
  bool operator==(const DensePairSplit&) const = default;
};

// The split for these layers on `threads` threads, or none where pairing does not pay:
// one thread, a build without the AVX-512 matrix-vector kernel, layers too small to split,
// or a second layer whose inputs are not the first's units.
DensePairSplit dense_pair_split(const DenseRowLayer& first, const DenseRowLayer& second, int threads);

// hidden = first(x) and out = second(hidden) for one row x (first.inputs floats), on
// split.tasks threads. `first_packed` is null (the first layer's kernel is read in place,
// a block of columns out of every row) or first's kernel as pack_dense_pair_first laid it
// out for this split (each thread's block read as one contiguous run, about 0.3 µs off
// the MLP's 5.5 µs prediction; the same bits: each column sums the same products in the same order). `out` may
// share memory with `x` (it is written last, after the join), not with `hidden`.
void dense_pair_run(const DensePairSplit& split, const DenseRowLayer& first, const float* first_packed,
                    const DenseRowLayer& second, const float* x, float* hidden, float* out);

// dense_pair_run on the current thread count with the first kernel in place; false,
// computing nothing, where the split says pairing does not pay (the caller then runs the
// layers one by one).
bool dense_pair_row(const DenseRowLayer& first, const DenseRowLayer& second, const float* x, float* hidden,
                    float* out);

// Writes first's kernel to `packed` (first.inputs · first.units floats, 64-byte aligned)
// task by task: task t's columns as one row-major first.inputs × (end(t) − begin(t))
// block. Counted by dense_pair_packs().
void pack_dense_pair_first(const DenseRowLayer& first, const DensePairSplit& split, float* packed);

// How many times this process has packed a first layer (for tests and profiles).
std::int64_t dense_pair_packs();

}  // namespace strata::cpu
