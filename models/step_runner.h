// StepRunner: what fit's and evaluate's loops drive, batch by batch: a train step and a
// test step that update the running logs, the logs, and the state a resumed or
// data-parallel fit reads. Two kinds implement it: CompiledModel (compile's built-in
// steps) and CustomSteps (a CustomModel's own train_step / test_step,
// models/custom_steps.h). The loops (callbacks, progress bar, History, BackupAndRestore)
// are the same for both.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/variable.h"
#include "data/batch_shard.h"

namespace strata {

namespace distribution {
class Communicator;
}

class StepRunner {
 public:
  virtual ~StepRunner() = default;
  // One optimizer step on a batch (`y` and `sample_weight` may be empty / undefined where
  // the step allows it); updates the running logs.
  virtual void train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                          const BatchShard& shard = {}) = 0;
  // One evaluation batch; updates the running logs.
  virtual void test_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                         const BatchShard& shard = {}) = 0;
  // Keras's reset_metrics: at every epoch's start and evaluation's.
  virtual void reset_metrics() = 0;
  // The running logs since the last reset ("loss", metrics).
  virtual std::map<std::string, float> results() const = 0;
  // The same into `logs`, in place when it already holds exactly these keys.
  virtual void results_into(std::map<std::string, float>& logs) const = 0;
  // Train steps run so far (they key dropout's and the random ops' draws); a resumed fit
  // continues the count.
  virtual std::int64_t train_steps() const = 0;
  virtual void set_train_steps(std::int64_t steps) = 0;
  // Data-parallel training: the communicator (null when training in one process), the
  // batch sources' sharding hook, and the broadcast of process 0's variables.
  virtual distribution::Communicator* communicator() const = 0;
  virtual Sharder sharder() const = 0;
  virtual void broadcast_variables(const std::vector<Variable>& variables) const = 0;
  // The variables of every optimizer the train step applies (saved with a backup).
  virtual std::vector<Variable> optimizer_variables() const = 0;
};

}  // namespace strata
