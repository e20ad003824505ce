// The suite's measurements and how they are reported: console tables, the targets of
// issue #7 with PASS/MISS, bench/results/results.csv and results.md.
#pragma once

#include <string>
#include <vector>

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
};

struct WorkloadResult {
  Workload workload;
  std::vector<FrameworkResult> frameworks;
};

// One GEMM implementation at one shape, GFLOP/s per repetition.
struct GemmResult {
  std::string backend;  // "strata cpu::gemm", "Eigen", "OpenBLAS (torch::mm)"
  std::string shape;    // "512x4096x4096" (m x n x k)
  std::vector<double> gflops;
};

struct RunInfo {
  std::string command;
  std::string date;
  std::string cpu;
  std::string load_before, load_after;  // `uptime`
  std::string versions;                 // libtorch, TensorFlow/Keras, Eigen
  std::string keras_status;             // "" or "skipped (...)"
  std::string wait_policy;
  int threads = 2;
  int reps = 0;
};

struct SuiteResults {
  int threads = 2;
  std::vector<WorkloadResult> workloads;
  std::vector<GemmResult> gemm;
};

// Prints one workload's table (medians with ranges), the ratios, and a warning for any
// framework whose range is wider than 1.5x.
void print_workload(const WorkloadResult& r);
void print_gemm(const std::vector<GemmResult>& gemm);
// Prints the targets summary (PASS/MISS, measured vs target).
void print_targets(const SuiteResults& results);
// results.csv and results.md in `dir` (created if absent), overwritten.
void write_results(const std::string& dir, const SuiteResults& results, const RunInfo& info);

}  // namespace strata::bench
