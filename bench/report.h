// The suite's measurements and how they are reported: console tables, the targets of
// issue #7 with PASS/MISS, bench/results/results.csv and results.md.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "bench/machine_info.h"
#include "bench/stats.h"
#include "bench/workload.h"

namespace strata::bench {

// One framework on one workload, one entry per repetition.
struct FrameworkResult {
  std::string framework;  // "strata", "libtorch", "keras"
  std::vector<double> train;       // samples/s
  std::vector<double> predict;     // samples/s
  std::vector<double> latency_us;  // median of the rep's batch-1 calls
  float last_loss = 0;
  std::string note;
  std::string failed;  // why it stopped early, if it did
  std::string not_run;  // "not run on cuda:0: ...": the framework cannot build the model there
};

struct WorkloadResult {
  Workload workload;
  std::vector<FrameworkResult> frameworks;
  int repetitions = 0;        // after the warm-up
  bool stable = false;        // every median settled before the --max_reps cap
  double stable_within = 0;   // the --stable_within it was judged by
};

// One GEMM implementation at one shape, GFLOP/s per repetition.
struct GemmResult {
  std::string backend;  // "strata cpu::gemm", "Eigen", "OpenBLAS (torch::mm)"
  std::string shape;    // "512x4096x4096" (m x n x k)
  std::vector<double> gflops;
};

// The per-step host overhead (--device=cuda's step_overhead): one framework's median
// microseconds per training step of a tiny model, one entry per repetition.
struct OverheadResult {
  std::string framework;  // "strata" (CUDA graphs on), "strata-no-graphs", "libtorch"
  std::vector<double> us;
  std::string failed;
};
// The framework name of Strata's step measured with CUDA graphs off (--device=cuda).
inline constexpr const char* kStrataWithoutGraphs = "strata-no-graphs";

// The run's stamp (command, date, CPU, load before; machine_info.h) and the rest.
struct RunInfo : RunStamp {
  std::string gpu;        // --device=cuda: "NVIDIA H200 (cuda:0)"; empty on the CPU
  std::string precision;  // --device=cuda: libtorch's TF32 settings
  std::string load_after;  // `uptime`
  std::string versions;                 // libtorch, TensorFlow/Keras, Eigen
  std::string kernel_paths;             // kernel_paths.h
  std::string keras_status;             // "" or "skipped (...)"
  std::string wait_policy;
  int threads = 2;
  int reps = 0;      // the fewest repetitions of a workload
  int max_reps = 0;  // the most
  double stable_within = 0;
};

// The machine's single-precision FMA peak (bench/fma_peak.h), GFLOP/s per trial.
struct FmaPeak {
  std::vector<double> gflops;
  std::string instructions;  // "AVX-512 (16 lanes)"
  double median() const;
};

// The machine's limits on memory-bound products (bench/memory_limits.h).
struct MemoryLimits {
  std::vector<double> read_gbps;      // all threads streaming from their own caches
  std::size_t bytes_per_thread = 0;   // each thread's buffer
  std::vector<double> round_trip_ns;  // between two cores; empty on one thread
};

struct SuiteResults {
  BenchDevice device = BenchDevice::cpu;
  int threads = 2;
  FmaPeak fma_peak;
  MemoryLimits memory;
  std::vector<WorkloadResult> workloads;
  std::vector<GemmResult> gemm;
  std::vector<OverheadResult> overhead;
};

// "strata train (3.1%)" for each median of `r` (each framework's train, predict and
// batch-1 figures) that moved by more than `tolerance` when the last repetition was
// added; empty when all have settled.
std::vector<std::string> unsettled_medians(const WorkloadResult& r, double tolerance);

// What every cell of the tables means (median, range, spread, "uncertain").
std::string legend();
// "FMA peak: 479.1 GFLOP/s (470.0..481.2, 2%), AVX-512 (16 lanes) on 2 threads".
std::string fma_peak_line(const FmaPeak& peak, int threads);
// "Cache read: 346 GB/s (...) on 2 threads, 512 KB each; core-to-core round trip: 300 ns (...)".
std::string memory_limits_line(const MemoryLimits& memory, int threads);
// The MLP's batch-1 floor on this machine from those limits, against the frameworks'
// measured latencies; empty when the mlp workload or the limits were not measured.
std::string mlp_batch1_floor_line(const SuiteResults& s);
// Prints one workload's table (medians with ranges and spreads, training as a share of
// the FMA peak), how many repetitions it took, the ratios (marked where uncertain), and
// a warning for any framework whose range is wider than 1.5x.
void print_workload(const WorkloadResult& r, const FmaPeak& fma_peak);
void print_gemm(const std::vector<GemmResult>& gemm);
// "per-step host overhead (...): strata 41.2 us (...), libtorch 63.0 us (...)", and that
// Strata has no CUDA graphs yet, so there is no figure with them.
std::vector<std::string> overhead_lines(const std::vector<OverheadResult>& overhead);
// The share of the GEMM peak dense4096 must reach on `device`: 70% on the CPU (issue
// #7), 80% of cuBLAS's SGEMM peak on the GPU (issue #12).
double dense_gemm_share_target(BenchDevice device);
// Prints the machine's peaks and the targets summary (PASS/MISS, measured vs target,
// "(uncertain)" where the ranges cannot decide it).
void print_targets(const SuiteResults& results);
// results.csv and results.md in `dir` (created if absent), overwritten.
void write_results(const std::string& dir, const SuiteResults& results, const RunInfo& info);

}  // namespace strata::bench
