// Program: what an executor runs. Compiled once from (feeds, fetches, targets):
//  1. common subexpressions merged (same op, inputs and attributes),
//  2. pruned to the nodes the fetches and targets need — nothing else ever runs,
//  3. ordered topologically, with stateful updates after every read of the step,
//  4. buffers planned by liveness: a value's buffer is reused once its last reader ran.
// Compiling finalizes the graph: adding a node afterwards throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/op_registry.h"
#include "core/tensor.h"

namespace strata {

struct RunOptions {
  bool training = false;   // dropout active, batch norm uses batch statistics
  std::int64_t step = 0;   // the random stream's step (dropout masks differ per step)
};

class Program {
 public:
  Program(Graph& graph, std::vector<Output> feeds, std::vector<Output> fetches,
          std::vector<Output> targets = {});

  // Feeds must match the placeholders' dtypes and known dims. Returns one tensor per
  // fetch, owned by the caller (buffers are reused by the next run).
  std::vector<Tensor> run(const std::vector<Tensor>& feeds, const RunOptions& options = {});
  // As run(), writing the fetches into `results`: tensors of the right shape that
  // nobody else holds are overwritten in place, so a steady-state step allocates nothing.
  void run_into(const std::vector<Tensor>& feeds, std::vector<Tensor>& results, const RunOptions& options = {});

  // Number of nodes the program executes per run (after CSE and pruning).
  int num_steps() const { return static_cast<int>(steps_.size()); }
  // Buffers the liveness plan allocates (versus one per computed value without it).
  int num_buffers() const { return static_cast<int>(buffers_.size()); }
  // How many times the kernel of graph node `id` has run in this program.
  std::int64_t executions(int node_id) const;
  // The graph node ids in execution order.
  std::vector<int> execution_order() const;

 private:
  struct Value {   // where the current value of (node, output) lives
    int buffer = -1;  // index into buffers_, or -1 for fed values / variables
    int feed = -1;    // index into the feed list
  };
  struct Step {
    int node = -1;
    std::vector<int> inputs;   // value ids
    std::vector<int> outputs;  // value ids
    // Shapes seen by the last run and what inference made of them: a step re-infers
    // only when its input shapes change (for example on a smaller last batch).
    std::vector<TensorSpec> last_inputs;
    std::vector<TensorSpec> last_outputs;
    bool inferred = false;
  };

  int value_id(int node, int index) const;
  void plan(const std::vector<int>& order, const std::vector<int>& canon);
  // Where a value lives: a planned buffer, a feed slot, or a variable's tensor. Stable
  // for the Program's life, so kernel contexts are bound once.
  Tensor* resolve(int value);
  void bind_contexts();
  void check_feeds(const std::vector<Tensor>& feeds) const;
  void copy_fetches(bool variables, std::vector<Tensor>& results);

  Graph& graph_;
  std::vector<Output> feeds_;
  std::vector<int> fetch_values_;
  std::vector<int> value_offset_;       // first value id of each node
  std::vector<Value> values_;
  std::vector<Step> steps_;
  std::vector<Tensor> buffers_;
  std::vector<Tensor> feed_slots_;        // this run's feeds (handles: no copy)
  std::vector<KernelContext> contexts_;   // one per step, bound to stable tensors
  std::vector<std::int64_t> executions_;
};

}  // namespace strata
