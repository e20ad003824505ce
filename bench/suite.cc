// strata_bench: the benchmark suite of issue #7 in one command (bench/run builds and
// runs it). For each workload (bench/workload.h) it runs Strata, libtorch's C++ API and
// Keras on TensorFlow (a Python worker, bench/keras_runner.h; skipped with one line if
// absent) in the same run: one warm-up each, then repetitions in rotating order, each a
// training epoch, an inference pass and --predict_calls batch-1 predictions, at least
// --reps of them and more until every median moves by at most --stable_within when the
// last is added (or --max_reps is reached). It also measures the machine's
// single-precision FMA peak (always) and GEMM peak (gemm_peak), prints medians with their
// spread, ratios (marked uncertain where the ranges overlap) and the targets with
// PASS/MISS, and writes results.csv / results.md.
//
//   bench/run [--reps=5] [--max_reps=3*reps] [--stable_within=0.02]
//             [--workloads=mlp,lstm,bilstm,cnn,transformer,dense4096,gemm_peak]
//             (resnet20, mobilenet_small, step_overhead, int8 and bf16 run when named; int8:
//             Strata's float32 MLP and Transformer block against the same quantized to int8;
//             bf16: Strata's float32 MLP and CNN training against the same under mixed_bfloat16)
//             [--threads=2] [--quick] [--results_dir=bench/results] [--no_keras]
//             [--device=cpu|cuda]
//
// --device=cuda (issue #12): the same workloads with larger batches (workload.h), Strata
// compiled for cuda:0 and libtorch on torch::kCUDA (TF32 off: both float32), each with
// its batches on the GPU up front; no Keras; a workload Strata's compile refuses on
// cuda:0 (ops without a CUDA kernel) is reported as not run for Strata while libtorch
// runs it. gemm_peak measures cuBLAS's SGEMM (torch::mm) and Strata's matmul op on the
// GPU, dense4096's target being 80% of that peak, and step_overhead the host's time per
// training step of a tiny model. Without a CUDA build, a CUDA libtorch or a GPU it exits
// with one line saying which.
//
// libtorch's GEMMs run in OpenBLAS's own pthread pool (Debian), set to the same thread
// count, and its other kernels in libgomp's OpenMP pool. OpenMP's spinning threads
// compete with OpenBLAS's on a small or shared machine: on a 2-vCPU box we measured
// libtorch at 2 threads anywhere between 800 and 43000 samples/s on the MLP with the
// default wait policy, a steady ~50000 with passive. libgomp reads OMP_WAIT_POLICY when it
// loads, so unless it is set the suite restarts itself with it passive (and says so).
// Strata's kernels run on their own pool (core/cpu/thread_pool.h), which the policy
// does not touch.
#include <unistd.h>

#include <Eigen/Core>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <sstream>

#include "bench/device.h"
#include "bench/fma_peak.h"
#include "bench/kernel_paths.h"
#include "bench/memory_limits.h"
#include "bench/keras_runner.h"
#include "bench/machine_info.h"
#include "bench/report.h"
#include "bench/workload.h"
#include "core/cpu/cpu_isa.h"
#include "core/cpu/bf16_gemm.h"
#include "core/cpu/int8_gemm.h"
#include "tools/cli/flags.h"

namespace {

using namespace strata::bench;

// The default --workloads; on the GPU step_overhead joins them. resnet20 and
// mobilenet_small (issue #37's CNN training) are left out: on the 2-core machine the two
// took 1.5 to 2.5 minutes together at --reps=2 (their medians ran to the 6-repetition
// cap), so several more minutes at the default 5 to 15, which would make the default run
// much longer; name them to run them.
constexpr const char* kDefaultWorkloads = "mlp,lstm,bilstm,cnn,transformer,dense4096,gemm_peak";

struct SuiteOptions {
  int reps = 5;       // the fewest repetitions of a workload
  int max_reps = 0;   // the most; 0: 3 * reps
  double stable_within = 0.02;
  std::string workloads = kDefaultWorkloads;
  int threads = 2;
  bool quick = false;
  std::string results_dir = STRATA_BENCH_SOURCE_DIR "/results";
  bool keras = true;
  std::string python = "python3";
  // Measured on the 2-core machine, 2 beat 1 for Keras's MLP (predict ~1.7x, train ~1.3x:
  // model.predict's tf.data input runs on the inter-op pool) and was even on the CNN.
  int keras_inter_op_threads = 2;
  int predict_calls = 200;
  int seed = 0;
  std::string device = "cpu";
};

struct Named {
  std::string framework;
  std::unique_ptr<Runner> runner;
};

// One repetition of one framework, appended to its result.
void run_rep(Runner& runner, int predict_calls, const Workload& w, FrameworkResult& r) {
  const double n = static_cast<double>(w.batches() * w.batch_size);
  const Timed train = runner.timed_train_epoch();
  r.train.push_back(n / train.seconds);
  r.last_loss = train.value;
  r.predict.push_back(n / runner.timed_predict_epoch().seconds);
  r.latency_us.push_back(runner.predict_one_median_us(predict_calls));
  r.note = runner.note();
}

WorkloadResult run_workload(const Workload& w, const SuiteOptions& o, const FmaPeak& fma_peak, KerasWorker* keras) {
  std::printf("\n[%s] building models...\n", w.name.c_str());
  std::fflush(stdout);
  const Data data = make_data(w, static_cast<unsigned>(o.seed));
  std::vector<Named> runners;
  std::vector<std::string> not_built(2);  // why strata's or libtorch's runner is missing (GPU only)
  const bool gpu = w.device == BenchDevice::cuda;
  // On the CPU a framework that cannot build its model stops the suite, as it always
  // has; on the GPU Strata's refused compile is a result, and any other error there is
  // reported for that framework while the other still runs.
  auto build = [&](const std::string& framework, auto make, std::string& why) {
    if (!gpu) return runners.push_back({framework, make(w, data)});
    try {
      runners.push_back({framework, make(w, data)});
    } catch (const NotOnDevice& e) {
      why = "not run on " + device_name(w.device) + ": " + e.what();
    } catch (const std::exception& e) {
      why = std::string("failed: ") + e.what();
    }
    if (!why.empty()) {
      runners.push_back({framework, nullptr});
      std::printf("%s: %s\n", framework.c_str(), why.c_str());
    }
  };
  build("strata", make_strata_runner, not_built[0]);
  build("libtorch", make_torch_runner, not_built[1]);
  std::string keras_failed;
  if (keras) {
    try {
      runners.push_back({"keras", make_keras_runner(*keras, w)});
    } catch (const std::exception& e) {
      keras_failed = e.what();
    }
  }
  WorkloadResult result{w, std::vector<FrameworkResult>(runners.size())};
  for (std::size_t i = 0; i < runners.size(); ++i) result.frameworks[i].framework = runners[i].framework;
  for (std::size_t i = 0; i < not_built.size(); ++i) {
    if (not_built[i].rfind("failed: ", 0) == 0) {
      result.frameworks[i].failed = not_built[i].substr(8);
    } else {
      result.frameworks[i].not_run = not_built[i];
    }
  }
  if (!keras_failed.empty()) {
    result.frameworks.emplace_back();
    result.frameworks.back().framework = "keras";
    result.frameworks.back().failed = keras_failed;
  }
  // Rep 0 is the warm-up (first-touch allocation, thread pools, Keras's tracing), thrown
  // away; then each repetition starts with the next framework in turn, so none always
  // runs on a warmer (or hotter) machine. After --reps, one more repetition of every
  // framework at a time until no median moves by more than --stable_within.
  result.stable_within = o.stable_within;
  for (int rep = 0; rep <= o.max_reps; ++rep) {
    for (std::size_t k = 0; k < runners.size(); ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(rep)) % runners.size();
      FrameworkResult& r = result.frameworks[i];
      if (!r.failed.empty() || !runners[i].runner) continue;
      try {
        FrameworkResult scratch;
        run_rep(*runners[i].runner, rep == 0 ? std::min(o.predict_calls, 20) : o.predict_calls, w,
                rep == 0 ? scratch : r);
      } catch (const std::exception& e) {
        r.failed = e.what();
        std::printf("%s failed on %s: %s\n", r.framework.c_str(), w.name.c_str(), e.what());
      }
    }
    result.repetitions = rep;
    if (rep >= o.reps && unsettled_medians(result, o.stable_within).empty()) {
      result.stable = rep >= 2;  // one repetition cannot tell
      break;
    }
  }
  print_workload(result, fma_peak);
  return result;
}

// Each backend on each shape, --reps times, the backends' order rotating with the
// repetition so that none always runs on a warmer (or hotter) machine. A call takes
// `flops_per_rep` of products (at least 3 calls, at most 2000). With `catch_failures`, a
// backend's failure on a shape is printed once and leaves its result empty (the GPU's
// backends may fail where the CPU's never do).
std::vector<GemmResult> time_gemm_backends(
    const std::vector<std::pair<std::string, std::function<double(const GemmShape&, int)>>>& backends,
    const std::vector<GemmShape>& shapes, int reps, double flops_per_rep, bool catch_failures) {
  std::vector<GemmResult> results;
  for (const auto& [name, fn] : backends) {
    for (const GemmShape& s : shapes) results.push_back({name, s.label(), {}});
  }
  for (int rep = 0; rep < reps; ++rep) {
    for (std::size_t k = 0; k < backends.size(); ++k) {
      const std::size_t b = (k + static_cast<std::size_t>(rep)) % backends.size();
      for (std::size_t s = 0; s < shapes.size(); ++s) {
        const GemmShape& sh = shapes[s];
        const int calls = static_cast<int>(std::clamp(flops_per_rep / sh.flops(), 3.0, 2000.0));
        GemmResult& r = results[b * shapes.size() + s];
        try {
          r.gflops.push_back(backends[b].second(sh, calls));
        } catch (const std::exception& e) {
          if (!catch_failures) throw;
          if (rep == 0) std::printf("%s failed at %s: %s\n", r.backend.c_str(), r.shape.c_str(), e.what());
        }
      }
    }
  }
  return results;
}

// Strata's cpu::gemm, Eigen's threaded product, OpenBLAS (torch::mm) and oneDNN
// (dnnl_sgemm) on the products the suite's models run (their forward products and both
// gradients, found by logging cpu::gemm's calls during training), the Dense layer's
// shape and a square one, interleaved over the repetitions; and the MLP's two batch-1
// products (1x256x784, 1x256x256), whose rate bounds its batch-1 latency
// (docs/performance.md). Issue #17 asks for cpu::gemm at >= 95% of the best library on
// each: print_gemm_shares shows it.
std::vector<GemmResult> run_gemm_peak(const SuiteOptions& o) {
  std::printf("\n[gemm_peak] measuring...\n");
  std::fflush(stdout);
  const std::int64_t big = o.quick ? 1024 : 4096, batch = o.quick ? 128 : 512, square = o.quick ? 512 : 2048;
  std::vector<GemmShape> shapes{{false, false, batch, big, big}, {false, false, square, square, square},
                                {false, false, 1, 256, 784},     {false, false, 1, 256, 256}};
  if (!o.quick) {
    const std::vector<GemmShape> model_shapes{
        // mlp (batch 128): forward, input gradients (B^T), kernel gradients (A^T)
        {false, false, 128, 256, 784}, {false, false, 128, 256, 256}, {false, false, 128, 10, 256},
        {false, true, 128, 256, 256}, {false, true, 128, 256, 10}, {true, false, 784, 256, 128},
        {true, false, 256, 256, 128}, {true, false, 256, 10, 128},
        // cnn's Dense(10) on 1600 features; transformer's projections (2048 rows)
        {false, false, 128, 10, 1600}, {true, false, 1600, 10, 128}, {false, false, 2048, 64, 64},
        {false, true, 2048, 64, 64}, {true, false, 64, 64, 2048}};
    shapes.insert(shapes.end(), model_shapes.begin(), model_shapes.end());
  }
  using Fn = std::function<double(const GemmShape&, int)>;
  std::vector<std::pair<std::string, Fn>> backends{{"strata cpu::gemm", strata_gemm_gflops},
                                                   {"Eigen (threaded product)", eigen_gemm_gflops},
                                                   {"OpenBLAS (torch::mm)", torch_gemm_gflops}};
  if (onednn_gemm_available()) {
    backends.push_back({"oneDNN (dnnl_sgemm)", [threads = o.threads](const GemmShape& g, int calls) {
                          return onednn_gemm_gflops(g, calls, threads);
                        }});
  } else {
    std::printf("oneDNN not built in (libdnnl-dev): compared with OpenBLAS only\n");
  }
  // About 0.2 s of products per repetition; at least 3 calls.
  std::vector<GemmResult> results = time_gemm_backends(backends, shapes, o.reps, 2e8, /*catch_failures=*/false);
  // The conv path's GEMM rate, against the peak above (issue #4 asks what bounds the CNN).
  results.push_back({"strata conv2d op (im2col + GEMM)", std::to_string(batch / 4) + "x13x13x32 * 3x3x32x64", {}});
  for (int rep = 0; rep < o.reps; ++rep) results.back().gflops.push_back(strata_conv2d_gflops(batch / 4, 20));
  print_gemm(results);
  return results;
}

// --device=cuda: cuBLAS's SGEMM through libtorch (torch::mm, TF32 off) and Strata's matmul
// op in a Program on cuda:0 (its own cuBLAS SGEMM, plus a sum to fetch a scalar), on two
// large squares (the peak: cuBLAS needs large products to fill an H100/H200), dense4096's
// products at batch 4096 (forward and the kernel's gradient, A^T) and the MLP's first
// layer at batch 1024. torch::mm rather than a cublasSgemm of the suite's own: the
// strata library links cuBLAS privately, and libtorch's call is the one a PyTorch user
// gets; Strata's row is the same cuBLAS routine that its Dense layers call.
std::vector<GemmResult> run_cuda_gemm_peak(const SuiteOptions& o) {
  std::printf("\n[gemm_peak] measuring on cuda:0...\n");
  std::fflush(stdout);
  const std::int64_t square = o.quick ? 1024 : 4096, big = o.quick ? 2048 : 8192, batch = o.quick ? 128 : 1024;
  const std::vector<GemmShape> shapes{{false, false, square, square, square},
                                      {false, false, big, big, big},
                                      {true, false, square, square, square},
                                      {false, false, batch, 256, 784}};
  using Fn = std::function<double(const GemmShape&, int)>;
  const std::vector<std::pair<std::string, Fn>> backends{
      {"cuBLAS SGEMM (torch::mm, TF32 off)", torch_cuda_gemm_gflops},
      {"strata matmul op (cuda:0 Program)", strata_cuda_matmul_gflops}};
  // About 0.2 s of products per repetition at 50 TFLOP/s; at least 3 calls.
  std::vector<GemmResult> results = time_gemm_backends(backends, shapes, o.reps, 1e13, /*catch_failures=*/true);
  std::erase_if(results, [](const GemmResult& r) { return r.gflops.empty(); });
  print_gemm(results);
  return results;
}

// The per-step host overhead of a tiny model's training step, Strata (on a GPU with CUDA
// graphs and without) and libtorch in turn, --reps repetitions of 200 steps each
// (docs/gpu.md).
std::vector<OverheadResult> run_step_overhead(const SuiteOptions& o, BenchDevice device) {
  std::printf("\n[step_overhead] measuring on %s...\n", device_name(device).c_str());
  std::fflush(stdout);
  const int steps = o.quick ? 20 : 200;
  std::vector<OverheadResult> results{{"strata", {}, {}}, {"libtorch", {}, {}}};
  std::vector<std::function<double(BenchDevice, int)>> fns{
      [](BenchDevice d, int n) { return strata_step_overhead_us(d, n, true); }, torch_step_overhead_us};
  if (device == BenchDevice::cuda) {
    results.push_back({std::string(kStrataWithoutGraphs), {}, {}});
    fns.push_back([](BenchDevice d, int n) { return strata_step_overhead_us(d, n, false); });
  }
  for (int rep = 0; rep < o.reps; ++rep) {
    for (std::size_t k = 0; k < results.size(); ++k) {
      const std::size_t i = (k + static_cast<std::size_t>(rep)) % results.size();
      if (!results[i].failed.empty()) continue;
      try {
        results[i].us.push_back(fns[i](device, steps));
      } catch (const std::exception& e) {
        results[i].failed = e.what();
      }
    }
  }
  for (const auto& line : overhead_lines(results)) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
  return results;
}

// Keras's int8 inference against float32 (issue #39): the MLP and the Transformer block,
// each built twice in Strata from the same weights, once quantized by
// model.quantize("int8") (its Dense layers then run dense_int8 on the int8 GEMM), their
// predict throughput over the workload's batches and batch-1 latency timed in turns,
// --reps repetitions after a warm-up. Prints each median with its range and the ratio per
// repetition.
void run_int8_inference(const SuiteOptions& o) {
  std::printf("\n[int8] Strata float32 vs Strata int8 (model.quantize(\"int8\")); int8 path: %s, float path: %s\n",
              strata::cpu::int8_path_name(strata::cpu::int8_path()), strata::cpu::kernel_isa_description().c_str());
  std::fflush(stdout);
  for (const char* base : {"mlp", "transformer"}) {
    Workload w = make_workload(base, o.threads, o.quick, BenchDevice::cpu);
    const Data data = make_data(w, static_cast<unsigned>(o.seed));
    Workload quantized = w;
    quantized.int8 = true;
    std::unique_ptr<Runner> runners[2];
    try {
      runners[0] = make_strata_runner(w, data);
      runners[1] = make_strata_runner(quantized, data);
    } catch (const std::exception& e) {  // a model quantize() refuses: said, and the next one runs
      std::printf("%s: not run: %s\n", base, e.what());
      continue;
    }
    const double n = static_cast<double>(w.batches() * w.batch_size);
    std::vector<double> throughput[2], latency[2], throughput_ratio, latency_ratio;
    for (int rep = 0; rep <= o.reps; ++rep) {
      double t[2], l[2];
      for (int k = 0; k < 2; ++k) {
        const int i = (k + rep) % 2;  // each starts every other repetition
        t[i] = n / runners[i]->timed_predict_epoch().seconds;
        l[i] = runners[i]->predict_one_median_us(rep == 0 ? 20 : o.predict_calls);
      }
      if (rep == 0) continue;  // the warm-up
      for (int i = 0; i < 2; ++i) {
        throughput[i].push_back(t[i]);
        latency[i].push_back(l[i]);
      }
      throughput_ratio.push_back(t[1] / t[0]);
      latency_ratio.push_back(l[0] / l[1]);
    }
    auto line = [](const char* what, const std::vector<double>& v, const char* unit) {
      const Summary s = summarize(v);
      std::printf("  %-34s %10.4g %s (%.4g..%.4g)\n", what, s.median, unit, s.min, s.max);
    };
    std::printf("%s (batch %lld, %lld samples), %d repetitions:\n", base, static_cast<long long>(w.batch_size),
                static_cast<long long>(n), o.reps);
    line("predict, float32", throughput[0], "samples/s");
    line("predict, int8", throughput[1], "samples/s");
    line("int8 / float32 throughput", throughput_ratio, "x");
    line("batch-1 latency, float32", latency[0], "us");
    line("batch-1 latency, int8", latency[1], "us");
    line("float32 / int8 latency (speed-up)", latency_ratio, "x");
  }
  std::fflush(stdout);
}

// Keras's mixed_bfloat16 training against float32 (issue #39): the MLP and the CNN, each
// built twice in Strata from the same seed, once under set_dtype_policy("mixed_bfloat16")
// (its Dense and Conv2D layers then compute on bfloat16 values, their products on the
// bfloat16 GEMM where the CPU has AVX-512 BF16), a training epoch of each timed in turns,
// --reps repetitions after a warm-up. Prints each median with its range and the ratio per
// repetition, and the path the bfloat16 products took.
void run_bf16_training(const SuiteOptions& o) {
  std::printf("\n[bf16] Strata float32 vs Strata mixed_bfloat16 training; bfloat16 path: %s, float path: %s\n",
              strata::cpu::bf16_path_name(strata::cpu::bf16_path()), strata::cpu::kernel_isa_description().c_str());
  std::fflush(stdout);
  for (const char* base : {"mlp", "cnn"}) {
    Workload w = make_workload(base, o.threads, o.quick, BenchDevice::cpu);
    const Data data = make_data(w, static_cast<unsigned>(o.seed));
    Workload mixed = w;
    mixed.dtype_policy = "mixed_bfloat16";
    std::unique_ptr<Runner> runners[2];
    try {
      runners[0] = make_strata_runner(w, data);
      runners[1] = make_strata_runner(mixed, data);
    } catch (const std::exception& e) {  // a class the policy refuses: said, and the next one runs
      std::printf("%s: not run: %s\n", base, e.what());
      continue;
    }
    const double n = static_cast<double>(w.batches() * w.batch_size);
    std::vector<double> throughput[2], ratio;
    for (int rep = 0; rep <= o.reps; ++rep) {
      double t[2];
      for (int k = 0; k < 2; ++k) {
        const int i = (k + rep) % 2;  // each starts every other repetition
        t[i] = n / runners[i]->timed_train_epoch().seconds;
      }
      if (rep == 0) continue;  // the warm-up
      for (int i = 0; i < 2; ++i) throughput[i].push_back(t[i]);
      ratio.push_back(t[1] / t[0]);
    }
    auto line = [](const char* what, const std::vector<double>& v, const char* unit) {
      const Summary s = summarize(v);
      std::printf("  %-34s %10.4g %s (%.4g..%.4g)\n", what, s.median, unit, s.min, s.max);
    };
    std::printf("%s (batch %lld, %lld samples an epoch), %d repetitions:\n", base,
                static_cast<long long>(w.batch_size), static_cast<long long>(n), o.reps);
    line("train, float32", throughput[0], "samples/s");
    line("train, mixed_bfloat16", throughput[1], "samples/s");
    line("mixed_bfloat16 / float32 throughput", ratio, "x");
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    ::setenv("OMP_WAIT_POLICY", "passive", 1);
    ::setenv("STRATA_BENCH_SET_WAIT_POLICY", "1", 1);
    ::execv("/proc/self/exe", argv);  // returns only on failure: run as we are
  }
  SuiteOptions o;
  strata::cli::Flags flags(
      "Strata vs libtorch vs Keras/TensorFlow: MLP, LSTM, BiLSTM, CNN, a 4096x4096 Dense, GEMM peak.");
  flags.add("reps", &o.reps, "the fewest interleaved repetitions after one warm-up")
      .add("max_reps", &o.max_reps, "the most repetitions, while a median still moves (0: 3 * reps)")
      .add("stable_within", &o.stable_within,
           "a median has settled when adding the last repetition moved it by at most this share")
      .add("workloads", &o.workloads, "comma-separated: mlp,lstm,bilstm,cnn,transformer,dense4096,gemm_peak,step_overhead,"
                                        "resnet20,mobilenet_small,int8,bf16 (default: all but step_overhead, resnet20, "
                                        "mobilenet_small, int8 and bf16; with --device=cuda, step_overhead too)")
      .add("threads", &o.threads, "CPU threads for every framework")
      .add("quick", &o.quick, "small sizes, for a smoke run")
      .add("results_dir", &o.results_dir, "where results.csv and results.md go")
      .add("keras", &o.keras, "run Keras on TensorFlow too (--no_keras: skip it)")
      .add("python", &o.python, "the Python that runs bench/keras_worker.py")
      .add("keras_inter_op_threads", &o.keras_inter_op_threads, "TensorFlow's inter-op thread count")
      .add("predict_calls", &o.predict_calls, "batch-1 predictions timed per repetition")
      .add("seed", &o.seed, "data seed")
      .add("device", &o.device,
           "cpu, or cuda: Strata on cuda:0 and libtorch on CUDA, larger batches, no Keras (issue #12)");
  flags.parse_or_exit(argc, const_cast<const char* const*>(argv));
  if (o.max_reps == 0) o.max_reps = 3 * o.reps;
  if (o.reps < 1 || o.max_reps < o.reps || o.stable_within < 0 || o.threads < 1 || o.predict_calls < 1) {
    std::cerr << "error: need --reps >= 1, --max_reps >= --reps (or 0), --stable_within >= 0, --threads >= 1, "
                 "--predict_calls >= 1\n";
    return 2;
  }
  if (o.quick) o.predict_calls = std::min(o.predict_calls, 20);
  BenchDevice device = BenchDevice::cpu;
  try {
    device = parse_bench_device(o.device);
  } catch (const std::invalid_argument& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  const bool gpu = device == BenchDevice::cuda;
  if (gpu) {
    if (const std::string why = cuda_unavailable_reason(cuda_support()); !why.empty()) {
      std::cerr << "strata_bench: " << why << "\n";
      return 1;
    }
    if (o.workloads == kDefaultWorkloads) o.workloads += ",step_overhead";
  }

  RunInfo info;
  static_cast<RunStamp&>(info) = stamp_run(argc, argv);
  info.threads = o.threads;
  info.reps = o.reps;
  info.max_reps = o.max_reps;
  info.stable_within = o.stable_within;
  info.wait_policy = std::getenv("OMP_WAIT_POLICY");
  if (std::getenv("STRATA_BENCH_SET_WAIT_POLICY")) info.wait_policy += " (set by strata_bench)";
  info.versions = "libtorch " + torch_version() + (gpu ? " (CUDA)" : " (OpenBLAS)") + ", Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." +
                  std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION);
  set_strata_threads(o.threads);
  set_torch_threads(o.threads);
  info.kernel_paths = kernel_paths_line();

  if (gpu) {
    info.gpu = strata_gpu_name();
    info.precision = torch_strict_float32();
  }
  std::unique_ptr<KerasWorker> keras;
  if (gpu) {
    info.keras_status = "skipped (--device=cuda: the Keras column runs TensorFlow's CPU build)";
    std::printf("keras: %s\n", info.keras_status.c_str());
  } else if (o.keras) {
    std::string why_not;
    keras = KerasWorker::start({.python = o.python,
                                .script = STRATA_BENCH_SOURCE_DIR "/keras_worker.py",
                                .threads = o.threads,
                                .inter_op_threads = o.keras_inter_op_threads},
                               &why_not);
    if (keras) {
      info.versions += ", " + keras->versions();
    } else {
      info.keras_status = "skipped (" + why_not + "; pip install tensorflow-cpu keras)";
      std::printf("keras: %s\n", info.keras_status.c_str());
    }
  } else {
    info.keras_status = "skipped (--no_keras)";
  }
  std::printf("strata_bench: %d threads, %d to %d reps (until every median moves <= %g%%), OMP_WAIT_POLICY=%s; %s\n"
              "CPU: %s; %s\nkernels: %s\n",
              o.threads, o.reps, o.max_reps, 100 * o.stable_within, info.wait_policy.c_str(), info.versions.c_str(),
              info.cpu.c_str(), info.load_before.c_str(), info.kernel_paths.c_str());
  if (gpu) std::printf("GPU: %s; %s\n", info.gpu.c_str(), info.precision.c_str());

  SuiteResults results;
  results.device = device;
  results.threads = o.threads;
  // The CPU's limits mean nothing for models on the GPU: measured on the CPU only.
  if (!gpu) {
    // Every thread the frameworks get, at once; before the workloads, on an idle process.
    results.fma_peak = {measure_fma_peak_gflops({.threads = o.threads}), fma_peak_instructions()};
    // How fast the cores stream cached data and hand work to each other: the limits of
    // memory-bound products (the MLP's batch-1 floor, memory_limits.h).
    results.memory.bytes_per_thread = 512 * 1024;
    results.memory.read_gbps =
        measure_cache_read_gbps({.threads = o.threads, .bytes_per_thread = results.memory.bytes_per_thread});
    if (o.threads > 1) results.memory.round_trip_ns = measure_round_trip_ns({});
  }
  std::printf("%s\n%s\n%s\n", fma_peak_line(results.fma_peak, o.threads).c_str(),
              memory_limits_line(results.memory, o.threads).c_str(), legend().c_str());
  try {
    for (const std::string& name : split_list(o.workloads)) {
      if (name == "gemm_peak") {
        results.gemm = gpu ? run_cuda_gemm_peak(o) : run_gemm_peak(o);
      } else if (name == "step_overhead") {
        results.overhead = run_step_overhead(o, device);
      } else if (name == "int8") {
        if (gpu) throw strata::ValueError("the int8 section measures the CPU's int8 kernels: run it without --device=cuda");
        run_int8_inference(o);
      } else if (name == "bf16") {
        if (gpu) throw strata::ValueError("the bf16 section measures the CPU's bfloat16 kernels: run it without --device=cuda");
        run_bf16_training(o);
      } else {
        results.workloads.push_back(
            run_workload(make_workload(name, o.threads, o.quick, device), o, results.fma_peak, keras.get()));
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  info.load_after = shell_line("uptime");
  print_targets(results);
  write_results(o.results_dir, results, info);
  return 0;
}
