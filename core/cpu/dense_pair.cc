#include "core/cpu/dense_pair.h"

#include <algorithm>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/gemv.h"
#include "core/cpu/parallel.h"

namespace strata::cpu {

namespace {

using Index = std::int64_t;

constexpr Index kLanes = 16;  // columns are handed out in whole vector registers
// Below this many multiply-adds a fork-join costs more than the second core saves (the
// threshold of cpu::gemm's matrix-vector products).
constexpr Index kParallelMacs = Index{1} << 15;
// The caller starts before the workers (they are handed their task across cores), so it
// takes more columns than an equal share: 144 of the MLP's 256 measured best, in a
// hand-written version and in this one (docs/performance.md).
constexpr Index kCallerSharePercent = 112;

Index round_to_lanes(Index columns) { return (columns + kLanes / 2) / kLanes * kLanes; }

void add_bias_relu(float* row, const float* bias, bool relu, Index n) {
  if (bias) {
    for (Index j = 0; j < n; ++j) row[j] += bias[j];
  }
  if (relu) {
    for (Index j = 0; j < n; ++j) row[j] = row[j] > 0.f ? row[j] : 0.f;
  }
}

}  // namespace

bool dense_pair_row(const DenseRowLayer& first, const DenseRowLayer& second, const float* x, float* hidden,
                    float* out) {
  const Index columns = first.units;  // the first layer's columns, the second's rows
  const int threads = num_threads();
  if (threads < 2 || !gemv_available() || second.inputs != columns) return false;
  if (first.inputs * columns + columns * second.units < kParallelMacs) return false;
  const int tasks = static_cast<int>(std::min<Index>(threads, columns / (2 * kLanes)));
  if (tasks < 2) return false;

  // Thread t owns columns [begin(t), begin(t + 1)) of the hidden row: the caller a little
  // more than an equal share, the others the rest in equal blocks of whole registers.
  const Index caller = std::clamp(round_to_lanes(columns * kCallerSharePercent / (100 * Index{tasks})), kLanes,
                                  columns - Index{tasks - 1} * kLanes);
  const Index per_worker = (columns - caller + Index{tasks - 1} * kLanes - 1) / (Index{tasks - 1} * kLanes) * kLanes;
  auto begin = [&](int t) { return t == 0 ? 0 : std::min(columns, caller + Index{t - 1} * per_worker); };

  // Each thread's partial row of the second layer, on whole cache lines of its own. The
  // caller's goes here too, not into `out`: `out` may be `x`, which others still read.
  const Index padded = (second.units + kLanes - 1) / kLanes * kLanes;
  thread_local AlignedBuffer partial_rows;
  float* partials = partial_rows.reserve(static_cast<std::size_t>(tasks * padded));

  auto part = [&](int t) {
    const Index c0 = begin(t), c1 = t + 1 == tasks ? columns : begin(t + 1);
    float* partial = partials + t * padded;
    if (c0 >= c1) {
      std::fill_n(partial, second.units, 0.f);
      return;
    }
    gemv_row(c1 - c0, first.inputs, x, 1, first.kernel + c0, columns, hidden + c0);
    add_bias_relu(hidden + c0, first.bias ? first.bias + c0 : nullptr, first.relu, c1 - c0);
    // This thread's hidden columns are rows [c0, c1) of the second layer's weights:
    // contiguous whole rows, and the values it just wrote, still in its own cache.
    gemv_row(second.units, c1 - c0, hidden + c0, 1, second.kernel + c0 * second.units, second.units, partial);
  };
  pool().run(tasks, part);

  std::copy_n(partials, second.units, out);
  for (int t = 1; t < tasks; ++t) {
    const float* partial = partials + t * padded;
    for (Index j = 0; j < second.units; ++j) out[j] += partial[j];
  }
  add_bias_relu(out, second.bias, second.relu, second.units);
  return true;
}

}  // namespace strata::cpu
