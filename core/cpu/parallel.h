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

}  // namespace strata::cpu
