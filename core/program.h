// Program: what an executor runs, an immutable plan compiled once from
// (feeds, fetches, targets):
//  1. common subexpressions merged (same op, inputs and attributes),
//  2. pruned to the nodes the fetches and targets need — nothing else ever runs,
//  3. ordered topologically, with stateful updates after every read of the step (and a
//     collective started as early and waited for as late as its data allows); an update
//     added under a RunIfScope (core/graph.h) runs only where its condition holds,
//  4. buffers planned by liveness: a value's buffer is reused once its last reader ran.
//  5. in a Program that writes no variable, the steps computed from variables and
//     constants alone (a folded BatchNormalization's kernel, core/inference_rewrite.h)
//     marked invariant: each execution state runs them once and again only when one of
//     those variables was written since (Tensor::version), keeping their values in
//     buffers of their own.
// Compiling finalizes the graph: adding a node afterwards throws.
//
// Plan and run state apart: a Program holds no buffer of any run. Each run borrows an
// ExecutionState (core/execution_state.h: buffers, feed slots, bound kernel contexts,
// cached shapes) from the Program's pool and gives it back, so any number of threads may
// run one Program at once without sharing a buffer; a warmed-up pool allocates nothing.
// A Program that writes variables (a train step, a stateful RNN's carried state) runs one
// call at a time: its runs take turns on a lock, since each reads what the last wrote.
//
// A Program belongs to one device: every op it runs must have a kernel there, else
// compiling throws naming the op, its layer and the device — nothing falls back to the
// CPU silently. Feeds on another device are copied in, fetches are copied out to the CPU.
// With set_log_device_placement(true) (core/device.h) compiling prints each node's device.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/op_registry.h"
#include "core/tensor.h"

namespace strata {

class ExecutionState;

struct RunOptions {
  bool training = false;   // dropout active, batch norm uses batch statistics
  std::int64_t step = 0;   // the random stream's step (dropout masks differ per step)
  // A data-parallel step: where the fed samples sit in the global batch (KernelContext),
  // and the communicator the all-reduce nodes use (core/collective.h).
  std::int64_t sample_offset = 0;
  std::int64_t global_batch = 0;
  Collective* collective = nullptr;
};

class Program {
 public:
  Program(Graph& graph, std::vector<Output> feeds, std::vector<Output> fetches,
          std::vector<Output> targets = {}, const Device& device = {});
  ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  // Feeds must match the placeholders' dtypes and known dims. Returns one tensor per
  // fetch, owned by the caller. Safe to call from many threads at once.
  std::vector<Tensor> run(const std::vector<Tensor>& feeds, const RunOptions& options = {}) const;
  // As run(), writing the fetches into `results`: tensors of the right shape that
  // nobody else holds are overwritten in place, so a steady-state step allocates nothing.
  void run_into(const std::vector<Tensor>& feeds, std::vector<Tensor>& results,
                const RunOptions& options = {}) const;

  // Number of nodes the program executes per run (after CSE and pruning).
  int num_steps() const { return static_cast<int>(steps_.size()); }
  // Buffers the liveness plan allocates per execution state (versus one per computed
  // value without it).
  int num_buffers() const { return num_buffers_; }
  // Steps computed from variables and constants alone, which a run skips while those
  // variables are unchanged (5. above).
  int num_invariant_steps() const;
  // Pairs of steps marked to run as one kernel when it applies (DeviceKernel::pair:
  // two Dense layers in a row on the CPU).
  int num_paired_steps() const;
  // How many times the kernel of graph node `id` has run in this program, over every
  // execution state. Read it when no run is in progress.
  std::int64_t executions(int node_id) const;
  // The graph node ids in execution order.
  std::vector<int> execution_order() const;
  // The device every step runs on.
  const Device& device() const { return device_; }
  // True when a run writes variables: such runs take turns (see above).
  bool writes_variables() const { return writes_variables_; }
  // Execution states made so far: at most the number of runs that were ever in progress
  // at one time.
  int num_execution_states() const;

 private:
  friend class ExecutionState;

  struct Value {   // where the current value of (node, output) lives in a run
    int buffer = -1;    // index into the state's buffers, or -1 for fed values / variables
    int feed = -1;      // index into the feed list
    int variable = -1;  // node id of a variable, read in place
  };
  struct Step {
    int node = -1;
    std::vector<int> inputs;   // value ids
    std::vector<int> outputs;  // value ids
    std::vector<char> outputs_read;  // per output: a later step reads it, or it is fetched
    const KernelFn* kernel = nullptr;  // the op's kernel for the Program's device
    // Set when this step and step `paired_with` (the next one that computes anything)
    // may run as one kernel (DeviceKernel::pair), which may still decline at run time.
    const PairKernelFn* pair_kernel = nullptr;
    int paired_with = -1;
    bool invariant = false;  // reads variables and constants only (5. above)
    int run_if = -1;  // value id of the scalar that must be nonzero for it to run (Node::run_if)
  };

  int value_id(int node, int index) const;
  static std::vector<int> schedule_collectives(const Graph& graph, const std::vector<int>& order,
                                               const std::vector<int>& canon);
  void plan(const std::vector<int>& order, const std::vector<int>& canon);
  void place_steps();
  void pair_steps();
  void check_feeds(const std::vector<Tensor>& feeds) const;
  void check_variables() const;
  std::unique_ptr<ExecutionState> acquire_state() const;
  void release_state(std::unique_ptr<ExecutionState> state) const;

  Graph& graph_;
  Device device_;
  std::vector<Output> feeds_;
  std::vector<int> fetch_values_;
  std::vector<int> value_offset_;   // first value id of each node
  std::vector<Value> values_;
  std::vector<Step> steps_;
  std::vector<int> variable_nodes_;  // the variables the steps read, by node
  std::vector<int> invariant_sources_;  // the variables the invariant steps read, by value id
  int num_buffers_ = 0;
  bool writes_variables_ = false;

  // The pool of execution states: every state ever made, and those not in use.
  mutable std::mutex pool_mutex_;
  mutable std::vector<std::unique_ptr<ExecutionState>> idle_;
  mutable std::vector<const ExecutionState*> all_;
  // Runs of a Program that writes variables hold this for their whole run.
  mutable std::mutex write_mutex_;
};

}  // namespace strata
