// The FMA peak kernel (see fma_peak.h). Each thread runs independent chains of
// acc = acc * multiplier + addend in vector registers. An FMA's result is ready only a
// few cycles after it issues (4 on recent x86) and a core issues up to two a cycle, so a
// core needs at least 8 chains in flight to be busy; we keep more, as many as the
// register file holds with room for the two constants.
//
// The compiler cannot fold the loop: the iteration count, the multiplier and the addend
// arrive at run time, floating-point arithmetic is not reassociated without -ffast-math,
// and the chains' sum is returned and kept. The intrinsics make each step one FMA
// instruction whatever -ffp-contract says (the build asks for ISO C++, where GCC does not
// contract a * b + c).
#include "bench/fma_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "bench/threaded_timing.h"

namespace strata::bench {
namespace {

#if defined(__AVX512F__)
using Vec = __m512;
constexpr int kLanes = 16;
constexpr int kChains = 24;  // of 32 zmm registers
Vec splat(float x) { return _mm512_set1_ps(x); }
Vec fused_multiply_add(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
Vec add(Vec a, Vec b) { return _mm512_add_ps(a, b); }
void store(float* to, Vec v) { _mm512_storeu_ps(to, v); }
constexpr const char* kInstructions = "AVX-512 (16 lanes)";
#elif defined(__FMA__) && defined(__AVX__)
using Vec = __m256;
constexpr int kLanes = 8;
constexpr int kChains = 12;  // of 16 ymm registers
Vec splat(float x) { return _mm256_set1_ps(x); }
Vec fused_multiply_add(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
Vec add(Vec a, Vec b) { return _mm256_add_ps(a, b); }
void store(float* to, Vec v) { _mm256_storeu_ps(to, v); }
constexpr const char* kInstructions = "AVX2/FMA (8 lanes)";
#else
// Neither: a multiply and an add per step, counted as the 2 flops an FMA would be.
using Vec = float;
constexpr int kLanes = 1;
constexpr int kChains = 8;
Vec splat(float x) { return x; }
Vec fused_multiply_add(Vec a, Vec b, Vec c) { return a * b + c; }
Vec add(Vec a, Vec b) { return a + b; }
void store(float* to, Vec v) { *to = v; }
constexpr const char* kInstructions = "scalar multiply-add";
#endif

constexpr double kFlopsPerIteration = 2.0 * kLanes * kChains;

// The chains' inputs and each run's result, where the compiler cannot see them.
volatile float g_multiplier = 0.9999f, g_addend = 1e-4f;
volatile float g_kept_result = 0;

float sum_lanes(Vec v) {
  float lanes[kLanes];
  store(lanes, v);
  float s = 0;
  for (float x : lanes) s += x;
  return s;
}

// The chains stay near addend / (1 - multiplier): no overflow, no subnormals.
float run_chains(std::int64_t iterations, float multiplier, float addend) {
  Vec chains[kChains];
  for (int c = 0; c < kChains; ++c) chains[c] = splat(addend * static_cast<float>(c));
  const Vec m = splat(multiplier), a = splat(addend);
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 32
    for (int c = 0; c < kChains; ++c) chains[c] = fused_multiply_add(chains[c], m, a);
  }
  Vec total = chains[0];
  for (int c = 1; c < kChains; ++c) total = add(total, chains[c]);
  return sum_lanes(total);
}

// Seconds for `threads` threads each running `iterations` of the chains at once.
double timed_run(int threads, std::int64_t iterations) {
  return time_on_threads(
      threads, [](int) {},
      [&](int) {
        // The chains are arithmetic on locals, which the compiler may move across the
        // clock calls; reading their inputs from volatiles after the first and storing the
        // result to one before the second pins them in between.
        g_kept_result = run_chains(iterations, g_multiplier, g_addend);
      });
}

}  // namespace

std::vector<double> measure_fma_peak_gflops(const FmaPeakOptions& o) {
  if (o.threads < 1 || o.trials < 1 || o.seconds_per_trial <= 0) {
    throw std::invalid_argument("measure_fma_peak_gflops: need threads >= 1, trials >= 1, seconds_per_trial > 0");
  }
  // Calibrate: time a short run, then size the trials to seconds_per_trial.
  std::int64_t iterations = 1 << 14;
  double seconds = timed_run(o.threads, iterations);
  while (seconds < 0.002) {
    iterations *= 4;
    seconds = timed_run(o.threads, iterations);
  }
  iterations = std::max<std::int64_t>(1, static_cast<std::int64_t>(static_cast<double>(iterations) *
                                                                    o.seconds_per_trial / seconds));
  std::vector<double> gflops;
  for (int trial = 0; trial < o.trials; ++trial) {
    const double s = timed_run(o.threads, iterations);
    gflops.push_back(kFlopsPerIteration * static_cast<double>(iterations) * o.threads / s / 1e9);
  }
  return gflops;
}

const char* fma_peak_instructions() { return kInstructions; }

}  // namespace strata::bench
