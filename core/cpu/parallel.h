// The CPU backend's threading: one pool of workers shared by every kernel
// (thread_pool.h); GEMM splits its products over the same pool. Small loops stay on one
// thread: forking costs more than it saves.
#pragma once

#include <algorithm>
#include <cstdint>

#include "core/cpu/thread_pool.h"

namespace strata::cpu {

inline constexpr std::int64_t kParallelThreshold = 1 << 15;

// Number of threads kernels use; defaults to the machine's cores (OMP_NUM_THREADS when
// set). Not to be changed while kernels run on other threads.
int num_threads();
void set_num_threads(int n);

// The item count below which parallel_for stays on one thread, for items that each cost
// about `work_per_item` elements of work.
inline std::int64_t threshold_for(std::int64_t work_per_item) {
  return std::max<std::int64_t>(1, kParallelThreshold / std::max<std::int64_t>(work_per_item, 1));
}

// How many segments to cut each of `rows` rows of `inner` elements into, so that a walk of
// few long rows (a broadcast collapsed to 2 rows of h * w) still gives every thread work:
// 1 when there are rows enough, and no segment under 4,096 elements.
inline std::int64_t row_segments(std::int64_t rows, std::int64_t inner) {
  const std::int64_t threads = num_threads();
  if (rows >= threads) return 1;
  return std::max<std::int64_t>(1, std::min((threads + rows - 1) / rows, inner / 4096));
}

// Calls fn(begin, end) over contiguous chunks of [0, n), in parallel when n is large.
// Chunks depend only on n and the thread count, so results are reproducible.
template <typename Fn>
void parallel_for(std::int64_t n, Fn&& fn, std::int64_t threshold = kParallelThreshold) {
  const int threads = num_threads();
  if (n < threshold || threads <= 1) {
    if (n > 0) fn(std::int64_t{0}, n);
    return;
  }
  const std::int64_t chunk = (n + threads - 1) / threads;
  auto task = [&](int t) {
    const std::int64_t begin = t * chunk;
    const std::int64_t end = std::min(n, begin + chunk);
    if (begin < end) fn(begin, end);
  };
  pool().run(static_cast<int>(std::min<std::int64_t>(threads, (n + chunk - 1) / chunk)), task);
}

// Calls fn(row, begin, end) for rows × [0, inner) row by row, in parallel: the rows of a
// strided walk (a broadcast), each cut into segments where there are fewer rows than
// threads (row_segments), so that a walk of two long rows still runs on every thread.
template <typename Fn>
void parallel_for_rows(std::int64_t rows, std::int64_t inner, Fn&& fn) {
  const std::int64_t segments = row_segments(rows, inner);
  if (segments == 1) {  // rows enough: no division per row
    parallel_for(rows, [&](std::int64_t first, std::int64_t last) {
      for (std::int64_t row = first; row < last; ++row) fn(row, std::int64_t{0}, inner);
    }, threshold_for(inner));
    return;
  }
  const std::int64_t segment = (inner + segments - 1) / segments;
  parallel_for(rows * segments, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t item = first; item < last; ++item) {
      const std::int64_t begin = item % segments * segment;
      fn(item / segments, begin, std::min(inner, begin + segment));
    }
  }, threshold_for(segment));
}

}  // namespace strata::cpu
