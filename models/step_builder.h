// StepBuilder: what a CustomModel's train_step / test_step / predict_step is written
// with (models/custom_model.h). Keras's step runs eagerly on every batch; a Strata step is
// a static graph, so the user's step is called ONCE, on symbolic tensors standing for any
// batch, and each call below adds nodes: the model's forward pass, the loss, the
// gradients, the optimizers' updates and the metrics' statistics. The result is compiled
// into programs that fit / evaluate / predict run on every batch; running them adds no node.
//
//   Keras (inside train_step)                     StepBuilder
//   x, y, sample_weight = data                    step.x(), step.y(), step.sample_weight()
//   y_pred = self(x, training=True)               step.call(x)
//   y_pred = self.generator(z)                    step.call(generator, z)
//   loss = self.compute_loss(y=y, y_pred=y_pred)  step.compute_loss(y, y_pred)
//   grads = tape.gradient(loss, variables)        step.gradients(loss, variables)
//   optimizer.apply(grads, variables)             step.apply(optimizer, grads, variables)
//   metric.update_state(y, y_pred)                step.update_state(metric, y, y_pred)
//   loss_tracker.update_state(loss)               step.update_state(loss_tracker, loss)
//
// Everything in one program runs on the weights as the step began, and the updates land
// after every read. Where Keras's step reads weights that an earlier part of the same
// step updated (the GAN trains its discriminator, then its generator through the updated
// discriminator), `step.next_phase()` ends the first part: each phase is a program of its
// own, run in order on the same batch, and reads what the phases before it wrote.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/variable.h"
#include "layers/layer.h"
#include "losses/metric.h"
#include "optimizers/optimizer.h"

namespace strata {

class CustomModel;

class StepBuilder {
 public:
  // One phase of a step: the values it fetches (metric statistics, in registration order)
  // and its stateful targets (optimizer and layer updates).
  struct MetricUpdate {
    metrics::Metric metric;
    std::size_t first = 0, count = 0;  // its statistics among the phase's fetches
    // A Mean of one value per batch (a loss tracker's update_state(loss)), not of one
    // per sample: data-parallel processes weight it by their rows when they sum it.
    bool batch_value = false;
  };
  struct Phase {
    std::vector<Output> fetches;
    std::vector<Output> targets;
    std::vector<MetricUpdate> updates;
  };

  // `x`, `y` and `sample_weight` are the batch's placeholders in `graph` (y may be empty,
  // sample_weight invalid); `training` is the programs' mode (fit's steps train).
  // `all_reduce_bucket_bytes` > 0: the step runs data-parallel over processes and apply()
  // sums the gradients over them in buckets of about that size.
  StepBuilder(Graph& graph, CustomModel& model, std::vector<Output> x, std::vector<Output> y, Output sample_weight,
              bool training, std::int64_t all_reduce_bucket_bytes = 0);

  // Keras's data = (x, y, sample_weight): one value per model input / target array; the
  // sample weight is invalid when the batch has none (Keras's None).
  const std::vector<Output>& x() const { return x_; }
  const std::vector<Output>& y() const { return y_; }
  Output sample_weight() const { return sample_weight_; }
  Graph& graph() { return graph_; }
  // The programs' mode: true in fit's train step, false in evaluate's and predict's.
  bool training() const { return training_; }

  // Keras's self(x): the model's own layer calls on `x` (its inputs, in order). Layers
  // that differ in training (Dropout, BatchNormalization) follow the program's mode.
  std::vector<Output> call(const std::vector<Output>& x);
  Output call(const Output& x);
  // The outputs of the last step.call(x) of the model's own call (empty before one): a
  // predict_step returning exactly them is Keras's default, self(x).
  const std::vector<Output>& own_call_outputs() const { return own_call_outputs_; }
  // Keras's self.generator(z): another model or built layer on `x` (its weights are its
  // own; a model tracked by the CustomModel trains and saves with it).
  std::vector<Output> call(const Layer& layer, const std::vector<Output>& x);
  Output call(const Layer& layer, const Output& x);

  // Keras's self.compute_loss(y=y, y_pred=y_pred, sample_weight=sample_weight): compile's
  // loss for each output (times loss_weights), plus the layers' own losses (add_loss,
  // activity regularizers) and the trainable weights' regularization penalties. A
  // ValueError when compile was given no loss.
  Output compute_loss(const std::vector<Output>& y, const std::vector<Output>& y_pred, Output sample_weight = {});
  Output compute_loss(Output y, Output y_pred, Output sample_weight = {});

  // Keras's tape.gradient(loss, variables): one gradient per variable, invalid for a
  // variable the loss does not depend on (Keras's None).
  std::vector<Output> gradients(Output loss, const std::vector<Variable>& variables);
  // Keras's optimizer.apply(grads, variables): the update nodes become the phase's
  // targets; pairs whose gradient is invalid are skipped, as Keras skips None. Under
  // data-parallel training the gradients are first summed over the processes, each
  // weighted by its rows (Keras's optimizer all-reduces them under a strategy). Every
  // optimizer applied here follows its learning-rate schedule and is saved by
  // BackupAndRestore.
  void apply(optimizers::Optimizer optimizer, const std::vector<Output>& grads, const std::vector<Variable>& variables);

  // Keras's metric.update_state(y_true, y_pred, sample_weight): the metric's statistics of
  // the batch are fetched and accumulated after every run of the step.
  void update_state(metrics::Metric metric, Output y_true, Output y_pred, Output sample_weight = {});
  // Keras's mean.update_state(values) for a metric of values (metrics::Mean).
  void update_state(metrics::Metric metric, Output values);

  // Ends the phase: the next phase's program runs after this one's, on the same batch,
  // and reads the weights it updated. Values are not carried across: what a later phase
  // needs it computes again (the same random draws come out, being keyed by the step).
  void next_phase();

  // Ends the last phase (called by the step's compiler, with the layers' state updates).
  std::vector<Phase> finish();
  // Every optimizer apply() was given, in first-use order.
  const std::vector<optimizers::Optimizer>& optimizers() const { return optimizers_; }

 private:
  void close_phase();

  Graph& graph_;
  CustomModel& model_;
  std::vector<Output> x_, y_;
  std::vector<Output> own_call_outputs_;
  Output sample_weight_;
  bool training_;
  std::int64_t all_reduce_bucket_bytes_;
  std::vector<Phase> phases_;
  Phase current_;
  std::size_t layer_updates_taken_ = 0;  // graph.updates(training) already in a phase
  std::vector<optimizers::Optimizer> optimizers_;
};

}  // namespace strata
