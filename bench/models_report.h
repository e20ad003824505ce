// What the real-model benchmark (bench/models.cc) measured, and how it is reported: a
// table on stdout, models.csv and models.md. Plain numbers in (no engine, no timing), so
// the arithmetic can be read on its own.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/machine_info.h"

namespace strata::bench {

// The batch sizes every model is measured at, in this order.
inline constexpr std::array<std::int64_t, 2> kModelBatches{1, 32};

// An engine's output against Strata's, on the same input.
struct OutputDifference {
  double max_abs = 0;  // max |strata - engine|
  double max_rel = 0;  // max_abs over max |engine|: relative to the output's magnitude
  std::string mismatch;  // non-empty when the two cannot be compared (shapes differ)
};

// One engine on one model.
struct EngineOnModel {
  std::string engine;   // strata, onnxruntime, keras
  std::string not_run;  // why it did not run on this model (could not start or load)
  std::string failed;   // what stopped it part way (its figures stop there)
  double load_seconds = 0;  // start of loading to the end of the first batch-1 prediction
  double peak_rss_mb = 0;   // the worker process's peak over its whole life
  // Per batch (kModelBatches' order), per round: the worker's median seconds over that
  // round's calls; NaN for a round it did not run.
  std::array<std::vector<double>, kModelBatches.size()> round_seconds;
  std::array<std::string, kModelBatches.size()> how;  // the call that was timed
  // Against Strata's output, per batch; unset for Strata itself or when either is missing.
  std::array<std::optional<OutputDifference>, kModelBatches.size()> difference;

  bool ran() const { return not_run.empty(); }
};

struct ModelResult {
  std::string model;
  std::string sample_shape;            // one sample's, "224x224x3"
  std::vector<EngineOnModel> engines;  // strata first, when it runs
  int rounds = 0;
};

// The run's stamp (command, date, CPU, load before; machine_info.h) and the rest.
struct ModelsRunInfo : RunStamp {
  std::string load_after;
  std::vector<std::string> versions;  // one per engine that started: "ONNX Runtime 1.32.0"
  int threads = 0, reps = 0, calls_batch1 = 0, calls_batch32 = 0;
  double keras_tolerance = 0;
};

// Strata's latency over `other`'s at batch index b, one ratio per round both ran.
std::vector<double> round_ratios(const EngineOnModel& strata, const EngineOnModel& other, std::size_t b);

// Where Strata's output is further from Keras's than `tolerance` (relative to the
// output's magnitude) or cannot be compared: one line each, empty when none.
std::vector<std::string> keras_mismatches(const std::vector<ModelResult>& results, double tolerance);

// The table of every model so far, as the driver prints it and models.md holds it, and
// the notes under it (engines not run or failed, which call each engine timed).
std::string models_table(const std::vector<ModelResult>& results, double keras_tolerance);
void write_models_results(const std::string& dir, const std::vector<ModelResult>& results,
                          const ModelsRunInfo& info);

}  // namespace strata::bench
