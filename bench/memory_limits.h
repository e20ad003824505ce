// The machine's limits on a memory-bound product: how fast a core streams data it holds
// in its own cache, and how long one core takes to see what another just wrote.
//
// A batch-1 Dense layer reads each weight once for one multiply-add, so the MLP's batch-1
// latency can be no lower than its weights' bytes over the cores' combined read rate;
// split over two cores, every layer also costs at least one hand-off between them (the
// second core needs the layer's input, the next layer needs both halves of its output).
// The suite measures both on the machine it runs on and reports the floor they give
// (docs/performance.md, "What bounds the MLP's batch-1 latency").
#pragma once

#include <cstddef>
#include <vector>

namespace strata::bench {

struct CacheReadOptions {
  int threads = 1;                           // each streams a buffer of its own, all at once
  std::size_t bytes_per_thread = 512 * 1024;  // sized to stay in the core's L2
  int trials = 7;
  double seconds_per_trial = 0.02;
};

// GB/s of each trial, all threads together: repeated passes of 512-bit loads over each
// thread's buffer (read once before timing, so it is in cache).
std::vector<double> measure_cache_read_gbps(const CacheReadOptions& options);

struct RoundTripOptions {
  int trials = 7;
  int round_trips_per_trial = 100000;
};

// Nanoseconds of one round trip between two threads (each waits, spinning, for the
// other's store to a cache line of its own), per trial.
std::vector<double> measure_round_trip_ns(const RoundTripOptions& options);

}  // namespace strata::bench
