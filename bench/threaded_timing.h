// Timing work that runs on several threads at once: the machine probes (fma_peak.cc,
// memory_limits.cc).
#pragma once

#include <algorithm>
#include <barrier>
#include <chrono>
#include <thread>
#include <vector>

namespace strata::bench {

// Runs prepare(t) on each of `threads` threads, then, once all have prepared, body(t) on
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
