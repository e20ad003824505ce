#include "core/cpu/dense_pair.h"

#include <algorithm>
#include <atomic>

#include "core/cpu/aligned_buffer.h"
#include "core/cpu/avx512.h"
#include "core/cpu/gemv.h"
#include "core/cpu/parallel.h"

namespace strata::cpu {

namespace {

using Index = std::int64_t;

constexpr Index kLanes16 = 16;  // columns are handed out in whole vector registers
// Below this many multiply-adds a fork-join costs more than the second core saves (the
// threshold of cpu::gemm's matrix-vector products).
constexpr Index kParallelMacs = Index{1} << 15;
// The caller starts before the workers (they are handed their task across cores), so it
// takes more columns than an equal share: 144 of the MLP's 256 measured best, in a
// hand-written version and in this one (docs/performance.md).
constexpr Index kCallerSharePercent = 112;

std::atomic<std::int64_t> packs{0};  // dense_pair_packs()

Index round_to_lanes(Index columns) { return (columns + kLanes16 / 2) / kLanes16 * kLanes16; }

// out[j] = Σ_t rows[t·stride + j] (+ bias[j]) (then max(·, 0)) for j < n and t < count,
// summed in task order: the caller's last pass, and with one row each thread's bias and
// relu. Both are on the prediction's critical path, so with AVX-512 (which the pair
// requires) they take whole registers: as scalar loops the caller's last pass took 0.28
// µs of the MLP's 4.6 µs pair, as vectors 0.10 (a time-stamp probe, docs/performance.md).
void sum_bias_relu(const float* rows, Index stride, int count, const float* bias, bool relu, Index n, float* out) {
#if defined(__AVX512F__)
  for (Index j = 0; j < n; j += kLanes16) {
    const __mmask16 lanes = n - j >= kLanes16 ? __mmask16{0xFFFF} : static_cast<__mmask16>((1u << (n - j)) - 1u);
    __m512 v = _mm512_maskz_loadu_ps(lanes, rows + j);
    for (int t = 1; t < count; ++t) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(lanes, rows + t * stride + j));
    if (bias) v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(lanes, bias + j));
    if (relu) v = _mm512_max_ps(v, _mm512_setzero_ps());
    _mm512_mask_storeu_ps(out + j, lanes, v);
  }
#else
  for (Index j = 0; j < n; ++j) {
    float v = rows[j];
    for (int t = 1; t < count; ++t) v += rows[t * stride + j];
    if (bias) v += bias[j];
    out[j] = relu && !(v > 0.f) ? 0.f : v;
  }
#endif
}

}  // namespace

DensePairSplit dense_pair_split(const DenseRowLayer& first, const DenseRowLayer& second, int threads) {
  const Index columns = first.units;  // the first layer's columns, the second's rows
  if (threads < 2 || !gemv_available() || second.inputs != columns) return {};
  if (first.inputs * columns + columns * second.units < kParallelMacs) return {};
  const int tasks = static_cast<int>(std::min<Index>(threads, columns / (2 * kLanes16)));
  if (tasks < 2) return {};
  const Index caller = std::clamp(round_to_lanes(columns * kCallerSharePercent / (100 * Index{tasks})), kLanes16,
                                  columns - Index{tasks - 1} * kLanes16);
  const Index worker_vectors = Index{tasks - 1} * kLanes16;
  const Index per_worker = (columns - caller + worker_vectors - 1) / worker_vectors * kLanes16;
  return {.tasks = tasks, .columns = columns, .caller = caller, .per_worker = per_worker};
}

Index DensePairSplit::begin(int task) const {
  return task == 0 ? 0 : std::min(columns, caller + Index{task - 1} * per_worker);
}

void dense_pair_run(const DensePairSplit& split, const DenseRowLayer& first, const float* first_packed,
                    const DenseRowLayer& second, const float* x, float* hidden, float* out) {
  // Each thread's partial row of the second layer, on whole cache lines of its own. The
  // caller's goes here too, not into `out`: `out` may be `x`, which others still read.
  const int tasks = split.tasks;
  const Index columns = split.columns;
  const Index padded = (second.units + kLanes16 - 1) / kLanes16 * kLanes16;
  thread_local AlignedBuffer partial_rows;
  float* partials = partial_rows.reserve(static_cast<std::size_t>(tasks * padded));

  const GemvRowKernel row = gemv_kernel();  // looked up once for the pair's products
  // By value: the worker reads the fields from the lambda itself, one run of the caller's
  // stack, not through references to where each one lives.
  auto part = [=](int t) {
    const Index c0 = split.begin(t), c1 = split.end(t);
    float* partial = partials + t * padded;
    if (c0 >= c1) {
      std::fill_n(partial, second.units, 0.f);
      return;
    }
    if (first_packed) {  // this thread's block: first.inputs rows of c1 - c0 columns
      row(c1 - c0, first.inputs, x, 1, first_packed + first.inputs * c0, c1 - c0, hidden + c0, {});
    } else {
      row(c1 - c0, first.inputs, x, 1, first.kernel + c0, columns, hidden + c0, {});
    }
    sum_bias_relu(hidden + c0, 0, 1, first.bias ? first.bias + c0 : nullptr, first.relu, c1 - c0, hidden + c0);
    // This thread's hidden columns are rows [c0, c1) of the second layer's weights:
    // contiguous whole rows, and the values it just wrote, still in its own cache.
    row(second.units, c1 - c0, hidden + c0, 1, second.kernel + c0 * second.units, second.units, partial, {});
  };
  pool().run(tasks, part);

  sum_bias_relu(partials, padded, tasks, second.bias, second.relu, second.units, out);
}

bool dense_pair_row(const DenseRowLayer& first, const DenseRowLayer& second, const float* x, float* hidden,
                    float* out) {
  const DensePairSplit split = dense_pair_split(first, second, num_threads());
  if (!split) return false;
  dense_pair_run(split, first, nullptr, second, x, hidden, out);
  return true;
}

void pack_dense_pair_first(const DenseRowLayer& first, const DensePairSplit& split, float* packed) {
  for (int t = 0; t < split.tasks; ++t) {
    const Index c0 = split.begin(t), width = split.end(t) - c0;
    float* block = packed + first.inputs * c0;
    for (Index k = 0; k < first.inputs; ++k) {
      std::copy_n(first.kernel + k * split.columns + c0, width, block + k * width);
    }
  }
  packs.fetch_add(1, std::memory_order_relaxed);
}

std::int64_t dense_pair_packs() { return packs.load(std::memory_order_relaxed); }

}  // namespace strata::cpu
