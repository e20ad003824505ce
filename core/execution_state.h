// ExecutionState: what one run of a Program needs and nothing the plan holds — the
// planned buffers, this run's feed slots, kernel contexts bound to those tensors, the
// shapes inference made of the last fed shapes, and for a Program on a device beside the
// CPU the device's run (core/device_run.h: a CUDA stream and its handles) its kernels
// enqueue on, so that states running one plan at once each have their own stream. A
// Program hands states out from its pool (core/program.h); one state serves one run at a
// time, and reused for the next run it allocates nothing unless a buffer must grow.
//
// On a GPU the state also owns persistent device buffers its fed tensors are copied
// into, and once the fed shapes have settled, a recording of its run (a CUDA graph):
// recorded once, replayed by later runs with the same shapes (core/cuda_graph_policy.h;
// docs/gpu.md, "CUDA graphs"). The CPU path pays one branch for it. The state reaches
// the device only through DeviceRun, which the device's backend makes.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/cuda_graph_policy.h"
#include "core/device_run.h"
#include "core/op_registry.h"
#include "core/tensor.h"

namespace strata {

class Program;
struct RunOptions;

class ExecutionState {
 public:
  explicit ExecutionState(const Program& program);
  ~ExecutionState();
  ExecutionState(const ExecutionState&) = delete;
  ExecutionState& operator=(const ExecutionState&) = delete;

  // Runs every step of the plan on `feeds` (already checked by the Program) and copies
  // the fetches into `results`.
  void run(const std::vector<Tensor>& feeds, std::vector<Tensor>& results, const RunOptions& options);
  // Lets go of the caller's fed tensors (also after a run that threw): the caller may
  // reuse and resize its batch tensors.
  void release_feeds();

  // How many times this state ran the kernel of graph node `id`.
  std::int64_t executions(int node_id) const { return executions_[static_cast<std::size_t>(node_id)]; }
  // Why this state never captures a CUDA graph (empty while it may).
  const std::string& graph_refusal() const { return graph_policy_.refusal(); }

 private:
  // Shapes seen by the last run of a step and what inference made of them: a step
  // re-infers only when its input shapes change (for example on a smaller last batch).
  struct ShapeCache {
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> outputs;
    bool valid = false;
  };

  // Where a value lives: a buffer of this state, a feed slot, or a variable's tensor.
  // Stable for the state's life, so kernel contexts are bound once.
  Tensor* resolve(int value);
  // Whether the scalar `value` of this run is nonzero (a step's Node::run_if), read once
  // per run (on a device, after its kernels finish).
  bool condition_holds(int value);
  void copy_fetches(bool variables, std::vector<Tensor>& results);
  void infer_if_changed(std::size_t s);
  void prepare(std::size_t s, const RunOptions& options);
  void finish_device_work();
  // Enqueues (on a GPU) or runs every step; returns whether the fetched variables were
  // copied out (before the first update). While capturing, nothing synchronizes and
  // the executed nodes are noted rather than counted.
  bool run_steps(const RunOptions& options, std::vector<Tensor>& results, bool capturing);
  void count_execution(int node_id, bool capturing);
  // True when the invariant steps' values are those of the variables as they are now.
  bool invariants_current() const;
  // A run on a device beside the CPU: feeds into this state's persistent buffers, then
  // eager steps, a capture or a replay.
  void run_on_device(const std::vector<Tensor>& feeds, std::vector<Tensor>& results, const RunOptions& options);
  void copy_feeds_in(const std::vector<Tensor>& feeds);
  void note_graph_addresses();
  bool capture_graph(const RunOptions& options, std::vector<Tensor>& results);
  void replay_graph(const RunOptions& options);
  void refuse_graphs(const std::string& reason);
  // Counts and explains the refusal once graphs are on (cuda_graph_counts()).
  void report_graph_refusal();
  // Why the plan cannot be captured at all (empty when it can).
  std::string plan_graph_refusal() const;

  const Program& program_;
  std::vector<Tensor> buffers_;
  std::vector<Tensor> feed_slots_;       // this run's feeds (handles: no copy)
  std::vector<KernelContext> contexts_;  // one per step, bound to this state's tensors
  std::vector<ShapeCache> shapes_;       // one per step
  std::vector<std::int64_t> executions_;
  std::vector<std::pair<int, bool>> conditions_;  // this run's conditions read so far
  // The versions of the variables the invariant steps read, noted before they last ran,
  // and whether that run ended (core/program.h, 5.).
  std::vector<Tensor::Version> invariant_versions_;
  bool invariants_ran_ = false;
  // Set for a Program on a device beside the CPU: every kernel context points to it. The
  // destructor waits for it before the buffers its kernels use are freed. Declared
  // before graph_, which replays on it and so must be destroyed first.
  std::unique_ptr<DeviceRun> device_run_;
  // On such a device: the buffers fed tensors are copied into (stable addresses for a
  // graph), the graph policy and the captured graph, the nodes one replay executes, and
  // the addresses outside this state a replay reads (variables' storage, feed buffers).
  std::vector<Tensor> device_feeds_;
  CudaGraphPolicy graph_policy_;
  std::unique_ptr<DeviceGraph> graph_;
  std::vector<int> graph_nodes_;
  std::vector<const void*> graph_addresses_;
};

}  // namespace strata
