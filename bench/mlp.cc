// MLP benchmark (issue #2): Strata against libtorch's C++ API on the same workload, in
// the same process, interleaved. MLP 784-256-256-10 (relu, relu, linear logits), batch
// 128, Adam (lr 1e-3), sparse categorical crossentropy from logits, 2 threads, random
// data. Reports training samples/s and batch-1 predict latency (median), and the ratios
// Strata/libtorch.
//
//   build/bench/bench_mlp [--reps=5] [--samples=6400] [--threads=2] [--predict_calls=200]
//
// Both frameworks share one process and libgomp; libtorch's GEMMs run in OpenBLAS's own
// pthread pool (Debian), set to the same thread count. On a small or shared machine
// OpenMP's spinning threads compete with BLAS threads and timings get noisy: unless
// OMP_WAIT_POLICY is set, the bench runs with it passive (and says so); it prints each
// median with its range and warns when the range is wide.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "bench/mlp_workload.h"
#include "examples/flags.h"

#ifndef STRATA_BENCH_WITH_STRATA
#define STRATA_BENCH_WITH_STRATA 0
#endif

namespace {

using strata::bench::MlpConfig;
using strata::bench::MlpData;
using strata::bench::MlpRunner;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

MlpData make_random_data(const MlpConfig& c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> label(0, c.classes - 1);
  MlpData d;
  d.x.resize(static_cast<std::size_t>(c.samples * c.inputs));
  d.y.resize(static_cast<std::size_t>(c.samples));
  for (float& v : d.x) v = normal(rng);
  for (std::int64_t& v : d.y) v = label(rng);
  return d;
}

struct Results {
  std::vector<double> samples_per_s;  // one per rep
  std::vector<double> latency_us;     // one median per rep
  float last_loss = 0;
};

void run_rep(MlpRunner& runner, const MlpConfig& c, int predict_calls, Results& r) {
  auto t0 = Clock::now();
  r.last_loss = runner.train_epoch();
  const std::int64_t trained = c.samples / c.batch_size * c.batch_size;
  r.samples_per_s.push_back(static_cast<double>(trained) / seconds_since(t0));
  std::vector<double> lat;
  lat.reserve(static_cast<std::size_t>(predict_calls));
  volatile float sink = 0;
  for (int i = 0; i < predict_calls; ++i) {
    t0 = Clock::now();
    sink = sink + runner.predict_one(i);
    lat.push_back(seconds_since(t0) * 1e6);
  }
  r.latency_us.push_back(median(lat));
}

}  // namespace

int main(int argc, char** argv) {
  // libgomp reads OMP_WAIT_POLICY when it loads, so the bench restarts itself with it set.
  // Spinning OpenMP workers starve libtorch's OpenBLAS threads (and each other's
  // kernels) on small or shared machines: on a 2-vCPU box we measured libtorch at 2
  // threads anywhere between 800 and 43000 samples/s with the default policy, a steady
  // ~50000 with passive.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::setenv("STRATA_BENCH_SET_WAIT_POLICY", "1", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: run as we are
  }
  const bool policy_set_here = std::getenv("STRATA_BENCH_SET_WAIT_POLICY") != nullptr;
  MlpConfig c;
  int reps = 5;
  int predict_calls = 200;
  int seed = 0;
  bool run_strata = STRATA_BENCH_WITH_STRATA;
  bool verbose = false;
  std::int64_t samples = c.samples;
  strata::examples::Flags flags(
      "MLP 784-256-256-10 training throughput and batch-1 predict latency, Strata vs libtorch.");
  flags.add("reps", &reps, "interleaved repetitions (one epoch + predict_calls each)")
      .add("samples", &samples, "random training samples per epoch (whole batches)")
      .add("batch_size", &c.batch_size, "training batch size")
      .add("threads", &c.threads, "CPU threads for both frameworks")
      .add("predict_calls", &predict_calls, "batch-1 predictions timed per repetition")
      .add("seed", &seed, "data seed")
      .add("strata", &run_strata, "run the Strata side (needs models/ built in)")
      .add("verbose", &verbose, "print every repetition");
  flags.parse_or_exit(argc, const_cast<const char* const*>(argv));
  c.samples = samples;
  if (reps < 1 || c.batch_size < 1 || c.samples < c.batch_size || predict_calls < 1) {
    std::cerr << "error: need reps >= 1, predict_calls >= 1, samples >= batch_size >= 1\n";
    return 2;
  }
  if (run_strata && !STRATA_BENCH_WITH_STRATA) {
    std::cout << "note: this bench_mlp was built without Strata's model API (models/ absent); "
                 "running libtorch only\n";
    run_strata = false;
  }

  std::printf(
      "bench_mlp: MLP %lld-%lld-%lld-%lld (relu, relu, logits), batch %lld, Adam lr=%g, "
      "sparse CE from logits, %d threads, %lld samples/epoch, %d reps; libtorch %s\n",
      static_cast<long long>(c.inputs), static_cast<long long>(c.hidden),
      static_cast<long long>(c.hidden), static_cast<long long>(c.classes),
      static_cast<long long>(c.batch_size), c.learning_rate, c.threads,
      static_cast<long long>(c.samples), reps, strata::bench::torch_version().c_str());
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  std::printf(
      "OMP_WAIT_POLICY=%s%s\n", policy ? policy : "(unset)",
      policy_set_here ? " (set by bench_mlp; export OMP_WAIT_POLICY=active to compare)" : "");

  const MlpData data = make_random_data(c, static_cast<unsigned>(seed));
  std::vector<std::unique_ptr<MlpRunner>> runners;
  runners.push_back(strata::bench::make_torch_mlp(c, data));
#if STRATA_BENCH_WITH_STRATA
  if (run_strata) runners.push_back(strata::bench::make_strata_mlp(c, data));
#endif

  // Warm-up: one epoch and a few predictions each (first-touch allocation, thread pools).
  for (auto& runner : runners) {
    Results warm;
    run_rep(*runner, c, std::min(predict_calls, 20), warm);
  }
  std::vector<Results> results(runners.size());
  for (int rep = 0; rep < reps; ++rep) {
    // Alternate the order so neither framework always runs on a warmer (or hotter) machine.
    for (std::size_t k = 0; k < runners.size(); ++k) {
      const std::size_t i = (rep % 2 == 0) ? k : runners.size() - 1 - k;
      run_rep(*runners[i], c, predict_calls, results[i]);
      if (verbose) {
        std::printf("  rep %d %-8s %10.1f samples/s  %8.1f us  loss %.4f\n", rep + 1,
                    runners[i]->name().c_str(), results[i].samples_per_s.back(),
                    results[i].latency_us.back(), results[i].last_loss);
      }
    }
  }

  // Medians over the repetitions, with their range: a wide range means a noisy machine.
  std::printf("%-10s %30s %30s %10s\n", "framework", "train samples/s (min..max)",
              "predict b=1 us (min..max)", "last loss");
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const auto& r = results[i];
    const auto [s_lo, s_hi] = std::minmax_element(r.samples_per_s.begin(), r.samples_per_s.end());
    const auto [l_lo, l_hi] = std::minmax_element(r.latency_us.begin(), r.latency_us.end());
    std::printf("%-10s %10.1f (%7.0f..%7.0f) %12.1f (%6.1f..%6.1f) %10.4f\n",
                runners[i]->name().c_str(), median(r.samples_per_s), *s_lo, *s_hi,
                median(r.latency_us), *l_lo, *l_hi, r.last_loss);
  }
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const auto [lo, hi] =
        std::minmax_element(results[i].samples_per_s.begin(), results[i].samples_per_s.end());
    if (*hi > 1.5 * *lo) {
      std::printf(
          "note: %s's throughput varied %.1fx across repetitions: the machine is noisy "
          "or oversubscribed (e.g. OpenMP threads spinning against BLAS threads); compare "
          "ratios, rerun with more --reps, or try --threads=1\n",
          runners[i]->name().c_str(), *hi / *lo);
    }
  }
  if (runners.size() == 2) {
    const double train_ratio = median(results[1].samples_per_s) / median(results[0].samples_per_s);
    const double latency_ratio = median(results[1].latency_us) / median(results[0].latency_us);
    std::printf(
        "ratio strata/libtorch: train samples/s %.2fx (>1: Strata faster), "
        "predict latency %.2fx (<1: Strata faster)\n",
        train_ratio, latency_ratio);
  } else {
    std::printf("ratio strata/libtorch: n/a (Strata side not run)\n");
  }
  return 0;
}
