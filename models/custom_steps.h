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
  // `for_fit`: compile's steps, which fit trains. Under a DataParallel of several processes
  // they join it, choosing the gradient transport with every process (a collective, so
  // every process makes them together); steps made for predict alone never do.
  CustomSteps(CustomModel& model, const Device& device, bool for_fit);
  // Steps made again (after quantize) keep `before`'s place in the job, with no collective.
  CustomSteps(CustomModel& model, const CustomSteps& before);
  ~CustomSteps() override;

  void train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                  const BatchShard& shard = {}) override;
  void test_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                 const BatchShard& shard = {}) override;
  // predict_step's outputs for a batch of inputs (concurrent predict calls take turns).
  std::vector<Tensor> predict_step(const std::vector<Tensor>& x);
  // Whether predict_step, built for batches like `x`, returns the model's own call of the
  // batch and nothing else (Keras's default predict_step, self(x)).
  bool predict_step_is_call(const std::vector<Tensor>& x);
  // Builds the train step for batches shaped as these arrays' rows before the first one
  // runs: a restored backup then finds the optimizers' slots it saved.
  void prepare_train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight);

  void reset_metrics() override;
  std::map<std::string, float> results() const override;
  void results_into(std::map<std::string, float>& logs) const override;
  const Device& device() const { return device_; }
  std::int64_t train_steps() const override { return train_steps_; }
  void set_train_steps(std::int64_t steps) override { train_steps_ = steps; }
  // Data-parallel training (compile under a distribution::DataParallel of several
  // processes; null communicator otherwise), as compile's steps: each process runs the
  // step on its share of every global batch, step.apply sums the gradients over the
  // processes (weighted by their rows: the gradient of the global batch's mean loss), and
  // the metrics' statistics are summed after every run, so every process updates the
  // same weights and logs the global batch's metrics.
  distribution::Communicator* communicator() const override { return communicator_; }
  Sharder sharder() const override;
  void broadcast_variables(const std::vector<Variable>& variables) const override;
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
           bool training, const BatchShard& shard);
  // Sums a phase's metric statistics over every process, in place (data-parallel runs).
  void all_reduce_metric_statistics(Built& step, std::size_t phase, std::int64_t rows);

  CustomModel& model_;
  Device device_;
  std::map<std::string, std::unique_ptr<Built>> built_;  // by kind and batch signature
  std::vector<Built*> train_built_;                       // in build order
  const Built* last_ = nullptr;                           // whose logs results() gives
  std::int64_t train_steps_ = 0;
  std::vector<Tensor> feeds_;
  std::mutex predict_mutex_;
  distribution::Communicator* communicator_ = nullptr;  // set when training spans processes
  bool auto_shard_ = true;
  std::int64_t bucket_bytes_ = 0;  // the gradient all-reduce's buckets (data-parallel)
  std::vector<double> reduce_buffer_;
};

}  // namespace strata
