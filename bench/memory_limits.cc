// The cache read and hand-off probes (see memory_limits.h).
#include "bench/memory_limits.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <thread>

#include "bench/threaded_timing.h"

namespace strata::bench {
namespace {

using Clock = std::chrono::steady_clock;

// Sums every float of `data` (a multiple of 128 floats) with 8 independent accumulators,
// so the loads, not the additions, set the pace.
float read_pass(const float* data, std::size_t floats) {
#if defined(__AVX512F__)
  __m512 acc[8];
  for (auto& a : acc) a = _mm512_setzero_ps();
  for (std::size_t i = 0; i < floats; i += 128) {
#pragma GCC unroll 8
    for (int v = 0; v < 8; ++v) acc[v] = _mm512_add_ps(acc[v], _mm512_load_ps(data + i + 16 * v));
  }
  for (int v = 1; v < 8; ++v) acc[0] = _mm512_add_ps(acc[0], acc[v]);
  return _mm512_reduce_add_ps(acc[0]);
#else
  float acc[8] = {};
  for (std::size_t i = 0; i < floats; i += 8) {
    for (int v = 0; v < 8; ++v) acc[v] += data[i + v];
  }
  float s = 0;
  for (float a : acc) s += a;
  return s;
#endif
}

struct AlignedFree {
  void operator()(float* p) const { std::free(p); }
};

volatile float g_kept_sum = 0;

// Seconds for every thread to make `passes` over its own buffer at once, each buffer
// read once before the clock starts, so that it is in its core's cache.
double timed_reads(const std::vector<std::unique_ptr<float[], AlignedFree>>& buffers, std::size_t floats,
                   std::int64_t passes) {
  return time_on_threads(
      static_cast<int>(buffers.size()),
      [&](int t) { g_kept_sum = read_pass(buffers[static_cast<std::size_t>(t)].get(), floats); },
      [&](int t) {
        const float* data = buffers[static_cast<std::size_t>(t)].get();
        float sum = 0;
        for (std::int64_t p = 0; p < passes; ++p) {
          // The buffer may have changed, as far as the compiler knows: every pass reads it
          // again (else it computes one pass and reuses the result).
          asm volatile("" ::: "memory");
          sum += read_pass(data, floats);
        }
        g_kept_sum = sum;
      });
}

}  // namespace

std::vector<double> measure_cache_read_gbps(const CacheReadOptions& o) {
  if (o.threads < 1 || o.trials < 1 || o.seconds_per_trial <= 0 || o.bytes_per_thread < 512) {
    throw std::invalid_argument(
        "measure_cache_read_gbps: need threads >= 1, trials >= 1, seconds_per_trial > 0, bytes_per_thread >= 512");
  }
  const std::size_t floats = o.bytes_per_thread / sizeof(float) / 128 * 128;
  std::vector<std::unique_ptr<float[], AlignedFree>> buffers;
  for (int t = 0; t < o.threads; ++t) {
    buffers.emplace_back(static_cast<float*>(std::aligned_alloc(64, floats * sizeof(float))));
    if (!buffers.back()) throw std::bad_alloc();
    std::fill_n(buffers.back().get(), floats, 1.0f);
  }
  std::int64_t passes = 16;
  double seconds = timed_reads(buffers, floats, passes);
  while (seconds < 0.002) {
    passes *= 4;
    seconds = timed_reads(buffers, floats, passes);
  }
  passes = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(passes) * o.seconds_per_trial /
                                                                seconds));
  std::vector<double> gbps;
  for (int trial = 0; trial < o.trials; ++trial) {
    const double s = timed_reads(buffers, floats, passes);
    gbps.push_back(static_cast<double>(floats * sizeof(float)) * static_cast<double>(passes) * o.threads / s / 1e9);
  }
  return gbps;
}

std::vector<double> measure_round_trip_ns(const RoundTripOptions& o) {
  if (o.trials < 1 || o.round_trips_per_trial < 1) {
    throw std::invalid_argument("measure_round_trip_ns: need trials >= 1, round_trips_per_trial >= 1");
  }
  // Each counter on a cache line of its own: a round trip moves exactly two lines.
  struct alignas(64) Counter {
    std::atomic<std::int64_t> value{0};
  };
  Counter ping, pong;
  const std::int64_t n = o.round_trips_per_trial;
  std::vector<double> ns;
  // A waiter that has spun this long yields: on a machine with one core (or a busy
  // one) the thread it waits for needs that core.
  auto wait_for = [](const std::atomic<std::int64_t>& value, std::int64_t expected) {
    for (int spins = 0; value.load(std::memory_order_acquire) != expected; ++spins) {
      if (spins > 100000) std::this_thread::yield();
    }
  };
  std::thread echo([&] {
    for (std::int64_t i = 1; i <= n * (o.trials + 1); ++i) {
      wait_for(ping.value, i);
      pong.value.store(i, std::memory_order_release);
    }
  });
  std::int64_t i = 0;
  for (int trial = 0; trial <= o.trials; ++trial) {  // trial 0 warms up
    const auto begin = Clock::now();
    for (std::int64_t r = 0; r < n; ++r) {
      ++i;
      ping.value.store(i, std::memory_order_release);
      wait_for(pong.value, i);
    }
    const double elapsed = std::chrono::duration<double, std::nano>(Clock::now() - begin).count();
    if (trial > 0) ns.push_back(elapsed / static_cast<double>(n));
  }
  echo.join();
  return ns;
}

}  // namespace strata::bench
