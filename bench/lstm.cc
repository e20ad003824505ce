// LSTM benchmark (issue #3): Strata against libtorch's torch::nn::LSTM on the same
// workload, in the same process, interleaved. Sequences of 50 steps x 32 features,
// batch 64, Adam (lr 1e-3), sparse categorical crossentropy from logits, 2 threads,
// random data; two models: LSTM(128) -> Dense(10) and Bidirectional(LSTM(64)) -> Dense(10).
// Reports training and inference samples/s (medians over reps) and Strata/libtorch ratios.
//
//   build/bench/bench_lstm [--reps=5] [--samples=1280] [--threads=2]
//
// As bench_mlp, it restarts itself with OMP_WAIT_POLICY=passive unless that is set.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "bench/lstm_workload.h"
#include "examples/flags.h"

namespace {

using strata::bench::LstmConfig;
using strata::bench::LstmData;
using strata::bench::LstmRunner;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

LstmData make_random_data(const LstmConfig& c, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<std::int64_t> label(0, c.classes - 1);
  LstmData d;
  d.x.resize(static_cast<std::size_t>(c.samples * c.timesteps * c.features));
  d.y.resize(static_cast<std::size_t>(c.samples));
  for (float& v : d.x) v = normal(rng);
  for (std::int64_t& v : d.y) v = label(rng);
  return d;
}

struct Results {
  std::vector<double> train, infer;  // samples/s, one per rep
  float last_loss = 0;
};

void run_rep(LstmRunner& runner, const LstmConfig& c, Results& r) {
  const double n = static_cast<double>(c.samples / c.batch_size * c.batch_size);
  auto t0 = Clock::now();
  r.last_loss = runner.train_epoch();
  r.train.push_back(n / seconds_since(t0));
  t0 = Clock::now();
  volatile float sink = runner.predict_epoch();
  (void)sink;
  r.infer.push_back(n / seconds_since(t0));
}

void run_model(LstmConfig c, int reps, unsigned seed) {
  const LstmData data = make_random_data(c, seed);
  std::vector<std::unique_ptr<LstmRunner>> runners;
  runners.push_back(strata::bench::make_torch_lstm(c, data));
  runners.push_back(strata::bench::make_strata_lstm(c, data));
  for (auto& runner : runners) {  // warm-up
    Results warm;
    run_rep(*runner, c, warm);
  }
  std::vector<Results> results(runners.size());
  for (int rep = 0; rep < reps; ++rep) {
    for (std::size_t k = 0; k < runners.size(); ++k) {
      const std::size_t i = (rep % 2 == 0) ? k : runners.size() - 1 - k;
      run_rep(*runners[i], c, results[i]);
    }
  }
  const char* model = c.bidirectional ? "Bidirectional(LSTM(%lld))" : "LSTM(%lld)";
  std::printf("\n");
  std::printf(model, static_cast<long long>(c.units));
  std::printf(" -> Dense(%lld)\n", static_cast<long long>(c.classes));
  std::printf("%-10s %28s %28s %10s\n", "framework", "train samples/s (min..max)", "infer samples/s (min..max)",
              "last loss");
  for (std::size_t i = 0; i < runners.size(); ++i) {
    const auto& r = results[i];
    const auto [t_lo, t_hi] = std::minmax_element(r.train.begin(), r.train.end());
    const auto [i_lo, i_hi] = std::minmax_element(r.infer.begin(), r.infer.end());
    std::printf("%-10s %10.1f (%7.0f..%7.0f) %10.1f (%7.0f..%7.0f) %10.4f\n", runners[i]->name().c_str(),
                median(r.train), *t_lo, *t_hi, median(r.infer), *i_lo, *i_hi, r.last_loss);
  }
  std::printf("ratio strata/libtorch: train %.2fx, inference %.2fx (>1: Strata faster)\n",
              median(results[1].train) / median(results[0].train), median(results[1].infer) / median(results[0].infer));
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: run as we are
  }
  LstmConfig c;
  int reps = 5;
  int seed = 0;
  std::int64_t samples = c.samples;
  strata::examples::Flags flags("LSTM training and inference throughput, Strata vs libtorch.");
  flags.add("reps", &reps, "interleaved repetitions (one training epoch + one inference pass each)")
      .add("samples", &samples, "random sequences per epoch (whole batches)")
      .add("batch_size", &c.batch_size, "batch size")
      .add("threads", &c.threads, "CPU threads for both frameworks")
      .add("seed", &seed, "data seed");
  flags.parse_or_exit(argc, const_cast<const char* const*>(argv));
  c.samples = samples;
  if (reps < 1 || c.batch_size < 1 || c.samples < c.batch_size) {
    std::cerr << "error: need reps >= 1 and samples >= batch_size >= 1\n";
    return 2;
  }
  std::printf("bench_lstm: %lld steps x %lld features, batch %lld, Adam lr=%g, %d threads, %lld samples/epoch, "
              "%d reps; libtorch %s; OMP_WAIT_POLICY=%s\n",
              static_cast<long long>(c.timesteps), static_cast<long long>(c.features),
              static_cast<long long>(c.batch_size), c.learning_rate, c.threads, static_cast<long long>(c.samples),
              reps, strata::bench::lstm_torch_version().c_str(), std::getenv("OMP_WAIT_POLICY"));
  run_model(c, reps, static_cast<unsigned>(seed));
  LstmConfig bi = c;
  bi.bidirectional = true;
  bi.units = 64;
  run_model(bi, reps, static_cast<unsigned>(seed));
  return 0;
}
