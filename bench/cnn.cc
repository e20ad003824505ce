// CNN benchmark (issue #4): Strata against libtorch's C++ API on the Fashion-MNIST
// tutorial's convnet (bench/cnn_workload.h), batch 128, Adam, in one process,
// interleaved. Reports training and inference samples/s (medians over reps, with
// ranges) and the ratios Strata/libtorch. It also says what bounds the conv path: the
// GFLOP/s of Strata's conv2d op (im2col + Eigen GEMM) on the tutorial's second
// convolution against the GFLOP/s of one big Eigen GEMM in this process (the machine's
// GEMM peak as Eigen reaches it, same threads).
//
//   build/bench/bench_cnn [--reps=3] [--samples=1280] [--threads=2]
//
// As bench_mlp, it restarts itself with OMP_WAIT_POLICY=passive unless that is set.
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <vector>

#include "bench/cnn_workload.h"
#include "core/cpu/parallel.h"
#include "examples/flags.h"

namespace {

using strata::bench::CnnConfig;
using strata::bench::CnnData;
using strata::bench::CnnRunner;
using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// GFLOP/s of one n×n×n Eigen GEMM (median of 3), Eigen's own threading.
double eigen_gemm_gflops(int n) {
  using M = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  M a = M::Random(n, n), b = M::Random(n, n), c(n, n);
  c.noalias() = a * b;  // warm-up
  std::vector<double> t;
  for (int i = 0; i < 3; ++i) {
    auto t0 = Clock::now();
    c.noalias() = a * b;
    t.push_back(seconds_since(t0));
  }
  volatile float sink = c(0, 0);
  (void)sink;
  return 2.0 * n * n * static_cast<double>(n) / median(t) / 1e9;
}

struct Results {
  std::vector<double> train, infer;
  float loss = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::execv("/proc/self/exe", argv);
  }
  CnnConfig c;
  int reps = 3;
  std::int64_t samples = c.samples;
  strata::examples::Flags flags("Fashion-MNIST convnet: training and inference samples/s, Strata vs libtorch.");
  flags.add("reps", &reps, "interleaved repetitions (one training epoch + one inference pass each)")
      .add("samples", &samples, "random samples per epoch (whole batches)")
      .add("threads", &c.threads, "CPU threads for both frameworks");
  flags.parse_or_exit(argc, const_cast<const char* const*>(argv));
  c.samples = samples / c.batch_size * c.batch_size;
  if (reps < 1 || c.samples < c.batch_size) {
    std::cerr << "error: need reps >= 1 and samples >= " << c.batch_size << "\n";
    return 2;
  }
  std::printf("bench_cnn: Conv2D(32,3,relu)-MaxPool-Conv2D(64,3,relu)-MaxPool-Flatten-Dropout-Dense(10), "
              "batch %lld, Adam, %d threads, %lld samples/epoch, %d reps; libtorch %s; OMP_WAIT_POLICY=%s\n",
              static_cast<long long>(c.batch_size), c.threads, static_cast<long long>(c.samples), reps,
              strata::bench::cnn_torch_version().c_str(), std::getenv("OMP_WAIT_POLICY"));

  CnnData data;
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  std::uniform_int_distribution<std::int64_t> label(0, 9);
  data.x.resize(static_cast<std::size_t>(c.samples * 784));
  data.y.resize(static_cast<std::size_t>(c.samples));
  for (float& v : data.x) v = u(rng);
  for (auto& v : data.y) v = label(rng);

  std::vector<std::unique_ptr<CnnRunner>> runners;
  runners.push_back(strata::bench::make_torch_cnn(c, data));
  runners.push_back(strata::bench::make_strata_cnn(c, data));
  for (auto& r : runners) {  // warm-up
    r->train_epoch();
    r->predict_epoch();
  }
  std::vector<Results> results(runners.size());
  for (int rep = 0; rep < reps; ++rep) {
    for (std::size_t k = 0; k < runners.size(); ++k) {
      const std::size_t i = rep % 2 == 0 ? k : runners.size() - 1 - k;
      auto t0 = Clock::now();
      results[i].loss = runners[i]->train_epoch();
      results[i].train.push_back(static_cast<double>(c.samples) / seconds_since(t0));
      t0 = Clock::now();
      volatile float sink = runners[i]->predict_epoch();
      (void)sink;
      results[i].infer.push_back(static_cast<double>(c.samples) / seconds_since(t0));
    }
  }
  std::printf("%-10s %28s %28s %10s\n", "framework", "train samples/s (min..max)", "infer samples/s (min..max)",
              "last loss");
  for (std::size_t i = 0; i < runners.size(); ++i) {
    auto& r = results[i];
    auto [tl, th] = std::minmax_element(r.train.begin(), r.train.end());
    auto [il, ih] = std::minmax_element(r.infer.begin(), r.infer.end());
    std::printf("%-10s %10.1f (%6.0f..%6.0f) %10.1f (%6.0f..%6.0f) %10.4f\n", runners[i]->name().c_str(),
                median(r.train), *tl, *th, median(r.infer), *il, *ih, r.loss);
  }
  std::printf("ratio strata/libtorch: train %.2fx, inference %.2fx (>1: Strata faster)\n",
              median(results[1].train) / median(results[0].train), median(results[1].infer) / median(results[0].infer));

  // What bounds the conv path.
  strata::cpu::set_num_threads(c.threads);
  const double conv_s = strata::bench::strata_conv2d_seconds(c.batch_size, 10);
  const double conv_flops = 2.0 * c.batch_size * 11 * 11 * (3 * 3 * 32) * 64;
  const double peak = eigen_gemm_gflops(2048);
  std::printf("conv2d op (%lld,13,13,32)*(3,3,32,64): %.2f ms, %.1f GFLOP/s; Eigen GEMM 2048^3: %.1f GFLOP/s "
              "(conv path at %.0f%% of it)\n",
              static_cast<long long>(c.batch_size), conv_s * 1e3, conv_flops / conv_s / 1e9, peak,
              100.0 * conv_flops / conv_s / 1e9 / peak);
  return 0;
}
