// CompiledModel: what compile() makes of a Model, once. It replays the model's layer
// calls into its own graph, adds loss, metric statistics, gradients and the optimizer's
// updates as nodes, and compiles the predict, test_step and train_step Programs.
// An inference-only CompiledModel (predict before compile) holds just the predict Program.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/inference_rewrite.h"
#include "core/program.h"
#include "data/batch_shard.h"
#include "distribution/data_parallel.h"
#include "losses/metric.h"
#include "models/options.h"
#include "models/step_runner.h"

namespace strata {

class ModelImpl;

class CompiledModel : public StepRunner {
 public:
  // `options` null: inference only.
  CompiledModel(ModelImpl& model, const CompileOptions* options);

  std::vector<Tensor> predict_step(const std::vector<Tensor>& x);
  // As predict_step, into `results` (Program::run_into: tensors of the right shape that no
  // one else holds are written in place).
  void predict_step_into(const std::vector<Tensor>& x, std::vector<Tensor>& results);
  // Whether predict_step runs the batch x one sample at a time on each thread
  // (core/samples_apart.h): the model's layers allow it (models/samples_apart.h), its inputs
  // take any batch size, and the batch and the threads allow it too.
  bool splits_samples(const std::vector<Tensor>& x) const;
  // One optimizer step on a batch; updates the epoch's running logs. `sample_weight`
  // (shape (B,), one weight per sample, shared by every output) may be undefined: the
  // unweighted programs run then.
  // Under data-parallel training `x` is this process's shard (`shard` says where it sits)
  // and the logs are the global batch's.
  void train_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                  const BatchShard& shard = {}) override;
  // One evaluation batch; updates the running logs.
  void test_step(const std::vector<Tensor>& x, const std::vector<Tensor>& y, const Tensor& sample_weight = {},
                 const BatchShard& shard = {}) override;

  // Data-parallel training (compile under a distribution::DataParallel of several
  // processes); null communicator otherwise.
  distribution::Communicator* communicator() const override { return communicator_; }
  bool auto_shard() const { return !distribution_ || distribution_->options().auto_shard_dataset; }
  // The batch sources' hook (BatchSource::shard_with) under data-parallel training:
  // shard_batch (models/data_parallel_step.h); empty without a communicator, whose
  // batches are whole.
  Sharder sharder() const override;
  // Gives every process process 0's variables: the model's weights and the optimizer's.
  void broadcast_variables(const std::vector<Variable>& variables) const override;

  void reset_metrics() override;
  // The optimizer the train step updates with (undefined for inference).
  const optimizers::Optimizer& optimizer() const { return optimizer_; }
  // Running logs since the last reset: "loss", per-output losses, metrics.
  std::map<std::string, float> results() const override;
  // The same into `logs`: when it already holds exactly these keys (the running logs of
  // an epoch after its first batch) only the values change, so nothing is allocated.
  void results_into(std::map<std::string, float>& logs) const override;

  // Converts user targets to what the loss expects (dtype, trailing 1-dims), checking
  // shapes against the model's outputs; throws naming the output.
  std::vector<Tensor> conform_targets(const std::vector<Tensor>& y) const;
  // Checks inputs against the model's Input specs; throws naming the input.
  void check_inputs(const std::vector<Tensor>& x) const;

  bool trainable() const { return train_ != nullptr; }
  // The programs, for tests of what they run: predict's (compiled from rewritten fetches,
  // core/inference_rewrite.h), and the unweighted train step's (null for inference only).
  const Program& predict_program() const { return *predict_; }
  const Program* train_program() const { return train_.get(); }
  // What rewriting the inference programs' fetches did.
  const InferenceRewrites& inference_rewrites() const { return inference_rewrites_; }
  std::size_t num_outputs() const { return output_names_.size(); }
  optimizers::Optimizer& optimizer() { return optimizer_; }
  const Graph& graph() const { return *graph_; }
  const Device& device() const { return device_; }
  std::int64_t train_steps() const override { return train_steps_; }
  // A resumed fit continues the step count (it keys dropout masks).
  void set_train_steps(std::int64_t steps) override { train_steps_ = steps; }
  std::vector<Variable> optimizer_variables() const override { return optimizer_.variables(); }

 private:
  void update_logs(const std::vector<Tensor>& fetched, std::int64_t batch_size);
  // The fetch sets of the inference programs and the inference-mode updates, rewritten.
  struct InferenceFetches {
    std::vector<std::vector<Output>> fetches;  // one per set given, in order
    std::vector<Output> updates;
  };
  InferenceFetches rewrite_inference_fetches(const std::vector<std::vector<Output>>& fetch_sets);
  // Sums this step's loss and metric statistics over every process, in place.
  void all_reduce_logs(std::vector<Tensor>& fetched, std::int64_t& batch_size);
  const std::vector<Tensor>& gather_feeds(const std::vector<Tensor>& x, const std::vector<Tensor>& y,
                                          const Tensor& sample_weight);

  // Per-step scratch, reused so that a steady-state step allocates nothing.
  std::vector<Tensor> step_feeds_;
  std::vector<Tensor> step_fetches_;
  std::vector<std::vector<Tensor>> metric_stats_;

  std::unique_ptr<Graph> graph_;
  Device device_;  // every Program's (compile's `device`)
  std::vector<Output> x_inputs_, y_inputs_, outputs_;
  std::vector<std::string> input_names_, output_names_;
  std::vector<TensorSpec> x_specs_, y_specs_;
  // Per output, the classes its sparse labels index (the prediction's last dim); -1 where
  // the loss takes no sparse labels or the count is unknown.
  std::vector<std::int64_t> sparse_classes_;
  std::unique_ptr<Program> predict_, test_, train_;
  bool samples_apart_ = false;  // predicts_samples_apart(model), on the CPU, inputs of any batch size
  // The same steps with a per-sample weight fed after the targets.
  Output sample_weight_input_;
  std::unique_ptr<Program> test_weighted_, train_weighted_;
  // Assigns constraint(w) to the constrained weights; run after every train step (null
  // when no trainable weight has a constraint).
  std::unique_ptr<Program> constrain_;
  std::vector<Tensor> constraint_fetches_;  // none: reused, so a step allocates nothing
  InferenceRewrites inference_rewrites_;
  optimizers::Optimizer optimizer_;

  // Logs: fetched as [total loss, per-output losses (if several outputs), metric stats].
  std::vector<std::string> loss_names_;
  std::vector<metrics::Mean> loss_trackers_;
  std::vector<metrics::Metric> metrics_;
  std::vector<std::size_t> metric_fetch_counts_;
  std::int64_t train_steps_ = 0;

  std::optional<distribution::DataParallel> distribution_;  // compile's
  distribution::Communicator* communicator_ = nullptr;      // set when it spans processes
  std::vector<double> reduce_buffer_;
};

}  // namespace strata
