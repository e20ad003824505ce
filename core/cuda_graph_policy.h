// When an execution state on a GPU captures its run as a CUDA graph, replays it, or runs
// eagerly (docs/gpu.md, "CUDA graphs"). Host logic only, no CUDA call: it builds and is
// tested in every build.
//
// A graph bakes in every launch's arguments: the shapes (grid sizes), the run's mode
// (training), and every address. So a run replays only when its fed shapes, dtypes and
// mode equal those of the captured run and the addresses the graph reads that the state
// does not own (variables' storage, the persistent feed buffers) are the ones recorded at
// capture. Anything else runs eagerly and drops the graph. Capture waits for
// `same_runs_before_capture` consecutive runs of one key, so that eager runs first grew
// every buffer, the run context's workspace and made its cuDNN handle (nothing may
// allocate inside a capture). A failed capture turns graphs off for the state for good.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace strata {

enum class GraphRunMode { eager, capture, replay };

class CudaGraphPolicy {
 public:
  explicit CudaGraphPolicy(int same_runs_before_capture = 3) : same_runs_before_capture_(same_runs_before_capture) {}

  // What the coming run does, given its fed tensors (shapes and dtypes are compared),
  // its mode, and the external addresses a graph of it would read. Any answer but
  // replay means the caller drops the graph it holds.
  GraphRunMode decide(const std::vector<Tensor>& feeds, bool training, const std::vector<const void*>& addresses);
  // The capture decided on succeeded with `addresses`: the next runs of the key replay.
  void captured(const std::vector<const void*>& addresses);
  // Turns graphs off for good (a capture failed, or the Program cannot be captured);
  // `reason` says why, for log_device_placement and tests.
  void refuse(std::string reason);
  // A run that did not ask (graphs switched off): the caller dropped its graph, and the
  // next runs of the key warm up again.
  void drop_graph() {
    holds_graph_ = false;
    same_runs_ = 0;
  }

  bool refused() const { return refused_; }
  const std::string& refusal() const { return refusal_; }
  // True once after refuse(), for the caller to count and explain the refusal then: at
  // the first run with graphs on (a refusal while they are off only shows once they are).
  bool report_refusal() {
    if (!refused_ || reported_) return false;
    reported_ = true;
    return true;
  }
  bool holds_graph() const { return holds_graph_; }

 private:
  bool same_key(const std::vector<Tensor>& feeds, bool training) const;

  int same_runs_before_capture_;
  std::vector<Shape> shapes_;  // the last run's key
  std::vector<DType> dtypes_;
  bool training_ = false;
  int same_runs_ = 0;  // consecutive runs with that key, the coming one included
  bool holds_graph_ = false;
  std::vector<const void*> captured_addresses_;
  bool refused_ = false;
  bool reported_ = false;
  std::string refusal_;
};

// Whether execution states on a GPU may use CUDA graphs: STRATA_CUDA_GRAPHS=0 in the
// environment turns them off (read once, at the first call); set_cuda_graphs overrides.
// Read at each run, so a test or a benchmark can compare both in one process.
void set_cuda_graphs(bool enabled) noexcept;
bool cuda_graphs_enabled() noexcept;

// Puts the switch back as it was when the scope ends, however it ends; given a value,
// sets the switch to it for the scope. For a test or a measurement that compares runs
// with graphs and without: take one first, then flip the switch freely.
class ScopedCudaGraphs {
 public:
  explicit ScopedCudaGraphs(std::optional<bool> enabled = std::nullopt) : before_(cuda_graphs_enabled()) {
    if (enabled) set_cuda_graphs(*enabled);
  }
  ~ScopedCudaGraphs() { set_cuda_graphs(before_); }
  ScopedCudaGraphs(const ScopedCudaGraphs&) = delete;
  ScopedCudaGraphs& operator=(const ScopedCudaGraphs&) = delete;

 private:
  bool before_;
};

// Process-wide counts of what execution states did with CUDA graphs (all zero in a build
// without CUDA): graphs captured, runs replayed from one, captures that failed or were
// refused (the state then runs eagerly for good).
struct CudaGraphCounts {
  std::int64_t captures = 0;
  std::int64_t replays = 0;
  std::int64_t refusals = 0;
};
CudaGraphCounts cuda_graph_counts() noexcept;
void reset_cuda_graph_counts() noexcept;
void count_cuda_graph_event(GraphRunMode mode) noexcept;  // capture or replay
void count_cuda_graph_refusal() noexcept;

}  // namespace strata
