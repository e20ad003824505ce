// CustomSteps: a CustomModel's train_step / test_step / predict_step compiled and run
// (models/custom_model.h). The first batch of each kind (its arrays' count, dtypes and
// shapes but the batch's) calls the user's step once on placeholders of those specs, in a
// graph of its own; the step's phases become Programs; later batches of that kind run
// them. fit's and evaluate's loops drive it as they drive compile's steps (StepRunner).
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/program.h"
#include "models/custom_model.h"
#include "models/step_builder.h"
#include "models/step_runner.h"

namespace strata {

class CustomSteps : public StepRunner {
 public:
  CustomSteps(CustomModel& model, const Device& device);
  ~CustomSteps() override;

  void train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                  const BatchShard& shard = {}) override;
  void test_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                 const BatchShard& shard = {}) override;
  // predict_step's outputs for a batch of inputs (concurrent predict calls take turns).
  std::vector<Tensor> predict_step(const std::vector<Tensor>& x);
  // Builds the train step for batches shaped as these arrays' rows before the first one
  // runs: a restored backup then finds the optimizers' slots it saved.
  void prepare_train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight);

  void reset_metrics() override;
  std::map<std::string, float> results() const override;
  void results_into(std::map<std::string, float>& logs) const override;
  const Device& device() const { return device_; }
  std::int64_t train_steps() const override { return train_steps_; }
  void set_train_steps(std::int64_t steps) override { train_steps_ = steps; }
  // A custom step under data-parallel training across processes is refused at compile.
  distribution::Communicator* communicator() const override { return nullptr; }
  Sharder sharder() const override { return {}; }
  void broadcast_variables(const std::vector<Variable>&) const override {}
  std::vector<Variable> optimizer_variables() const override;

  // The model's output count (0 when it has no call of its own): a Dataset's components
  // after the inputs are that many targets, then an optional sample weight.
  std::size_t num_outputs() const;
  // For tests of the no-growth guarantee: the nodes of every step graph built so far, and
  // the programs compiled.
  int num_nodes() const;
  int num_programs() const;
  // The train step's graph (the first built); a ValueError before fit has run.
  const Graph& train_graph() const;

 private:
  enum class Kind { train, test, predict };
  struct Built;
  Built& built(Kind kind, const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight);
  void run(Built& step, const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight,
           bool training);

  CustomModel& model_;
  Device device_;
  std::map<std::string, std::unique_ptr<Built>> built_;  // by kind and batch signature
  std::vector<Built*> train_built_;                       // in build order
  const Built* last_ = nullptr;                           // whose logs results() gives
  std::int64_t train_steps_ = 0;
  std::vector<Tensor> feeds_;
  std::mutex predict_mutex_;
};

}  // namespace strata
