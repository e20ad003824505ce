// Timing work that runs on several threads at once: the machine probes (fma_peak.cc,
// memory_limits.cc).
#pragma once

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

namespace strata::bench {

// Pins the calling thread to the t-th CPU it may run on, where it may run on at least
// `threads` of them; else leaves it where it is. Fresh threads are placed by the
// scheduler, which on a 2-vCPU AMD EPYC VM sometimes kept two of them on one CPU for much
// of a 30 ms trial: the two-thread FMA peak read anywhere from 265 to 545 GFLOP/s from
// trial to trial; pinned, four runs had medians of 541-552 (docs/performance.md).
inline void pin_to_allowed_cpu(int t, int threads) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < threads) return;
  for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed) || seen++ != t) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    return;
  }
}

// Runs prepare(t) on each of `threads` threads, each pinned to a CPU of its own where
// there are enough (pin_to_allowed_cpu), then, once all have prepared, body(t) on
// all of them at once. Returns the seconds from the first body's start to the last one's
// end: timing from the earliest start to the latest end (not each thread on its own)
// keeps a thread that the OS started late from counting as running beside the others.
template <typename Prepare, typename Body>
double time_on_threads(int threads, Prepare prepare, Body body) {
  using Clock = std::chrono::steady_clock;
  std::barrier start(threads);
  std::vector<Clock::time_point> begins(static_cast<std::size_t>(threads)), ends(begins.size());
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      pin_to_allowed_cpu(t, threads);
      prepare(t);
      start.arrive_and_wait();
      begins[static_cast<std::size_t>(t)] = Clock::now();
      body(t);
      ends[static_cast<std::size_t>(t)] = Clock::now();
    });
  }
  for (auto& w : workers) w.join();
  return std::chrono::duration<double>(*std::max_element(ends.begin(), ends.end()) -
                                       *std::min_element(begins.begin(), begins.end()))
      .count();
}

}  // namespace strata::bench
