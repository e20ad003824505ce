// ExecutionState: what one run of a Program needs and nothing the plan holds — the
// planned buffers, this run's feed slots, kernel contexts bound to those tensors, the
// shapes inference made of the last fed shapes, and for a Program on a GPU the CUDA run
// context (stream and cuBLAS handle) its kernels enqueue on, so that states running one
// plan at once each have their own stream. A Program hands states out from its
// pool (core/program.h); one state serves one run at a time, and reused for the next
// run it allocates nothing unless a buffer must grow.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/op_registry.h"
#include "core/tensor.h"

namespace strata {

class Program;
struct RunOptions;
namespace cuda {
class RunContext;  // core/cuda/run_context.h
}

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
  void copy_fetches(bool variables, std::vector<Tensor>& results);
  void infer_if_changed(std::size_t s);
  void prepare(std::size_t s, const RunOptions& options);
  void finish_device_work();

  const Program& program_;
  std::vector<Tensor> buffers_;
  std::vector<Tensor> feed_slots_;       // this run's feeds (handles: no copy)
  std::vector<KernelContext> contexts_;  // one per step, bound to this state's tensors
  std::vector<ShapeCache> shapes_;       // one per step
  std::vector<std::int64_t> executions_;
  // Set for a Program on a CUDA device: every kernel context points to it. The
  // destructor waits for its stream before the buffers its kernels use are freed.
  std::unique_ptr<cuda::RunContext> cuda_;
};

}  // namespace strata
