#include "models/step_builder.h"

#include <algorithm>

#include "core/autodiff.h"
#include "core/error.h"
#include "core/ops.h"
#include "core/ops/array_ops.h"
#include "distribution/gradient_buckets.h"
#include "models/custom_model.h"

namespace strata {

StepBuilder::StepBuilder(Graph& graph, CustomModel& model, std::vector<Output> x, std::vector<Output> y,
                         Output sample_weight, bool training, std::int64_t all_reduce_bucket_bytes)
    : graph_(graph),
      model_(model),
      x_(std::move(x)),
      y_(std::move(y)),
      sample_weight_(sample_weight),
      training_(training),
      all_reduce_bucket_bytes_(all_reduce_bucket_bytes) {}

std::vector<Output> StepBuilder::call(const std::vector<Output>& x) {
  if (model_.inputs.empty()) {
    throw ValueError("model '" + model_.name +
                     "' has no call of its own (it was made without inputs and outputs): call the models it tracks, "
                     "step.call(model, x)");
  }
  own_call_outputs_ = model_.call(graph_, x);
  return own_call_outputs_;
}

Output StepBuilder::call(const Output& x) {
  std::vector<Output> out = call(std::vector<Output>{x});
  if (out.size() != 1) {
    throw ValueError("model '" + model_.name + "' has " + std::to_string(out.size()) +
                     " outputs: use step.call with a list of inputs, which returns every output");
  }
  return out[0];
}

std::vector<Output> StepBuilder::call(const Layer& layer, const std::vector<Output>& x) {
  if (!layer.defined()) throw ValueError("step.call: the layer is undefined");
  LayerImpl& impl = layer.impl();
  if (!impl.built) {
    throw ValueError(layer.class_name() + " '" + layer.name() +
                     "' is not built: call it on an Input (or give it an Input) before a step calls it");
  }
  if (!impl.accepts_input_count(x.size())) {
    throw ValueError(layer.class_name() + " '" + layer.name() + "' does not take " + std::to_string(x.size()) +
                     " inputs");
  }
  NameScope scope(graph_, layer.name());
  return impl.call(graph_, x);
}

Output StepBuilder::call(const Layer& layer, const Output& x) {
  std::vector<Output> out = call(layer, std::vector<Output>{x});
  if (out.size() != 1) {
    throw ValueError(layer.class_name() + " '" + layer.name() + "' has " + std::to_string(out.size()) +
                     " outputs: use step.call with a list of inputs");
  }
  return out[0];
}

namespace {

// Targets as the loss takes them: float32 for a dense loss, and (B,) targets of a (B, 1)
// prediction given their last axis, as fit's arrays are conformed.
Output step_builder_conform_target(const losses::Loss& loss, Output y, Output y_pred) {
  if (!loss.sparse_targets() && y.dtype() != DType::float32) y = ops::cast(y, DType::float32);
  const Shape& p = y_pred.shape();
  if (!loss.sparse_targets() && y.shape().rank() + 1 == p.rank() && p.rank() > 0 && p.dims().back() == 1) {
    y = ops::expand_dims(y, -1);
  }
  return y;
}

}  // namespace

Output StepBuilder::compute_loss(const std::vector<Output>& y, const std::vector<Output>& y_pred,
                                 Output sample_weight) {
  const std::vector<losses::Loss>& losses = model_.losses_;
  if (losses.empty()) {
    throw ValueError("model '" + model_.name +
                     "': compute_loss needs the loss given to compile (.loss = ...); a step that computes its own "
                     "loss calls it directly");
  }
  if (y.size() != y_pred.size()) {
    throw ValueError("compute_loss: " + std::to_string(y.size()) + " targets for " + std::to_string(y_pred.size()) +
                     " predictions");
  }
  if (losses.size() != 1 && losses.size() != y_pred.size()) {
    throw ValueError("compute_loss: compile gave " + std::to_string(losses.size()) + " losses for " +
                     std::to_string(y_pred.size()) + " outputs");
  }
  Output total;
  for (std::size_t k = 0; k < y_pred.size(); ++k) {
    const losses::Loss& loss = losses.size() == 1 ? losses[0] : losses[k];
    Output value = loss(step_builder_conform_target(loss, y[k], y_pred[k]), y_pred[k], sample_weight);
    const float weight = k < model_.loss_weights_.size() ? model_.loss_weights_[k] : 1.0f;
    if (weight != 1.0f) value = ops::mul(value, weight);
    total = total.valid() ? ops::add(total, value) : value;
  }
  // Keras's model.losses: the layers' own losses, then one penalty per regularized
  // trainable weight (as compile's built-in step adds them).
  for (const Output& layer_loss : graph_.losses()) total = ops::add(total, layer_loss);
  std::vector<Variable> trainable = model_.trainable_variables();
  std::vector<const void*> seen;
  for (const Layer& layer : model_.sublayers()) {
    for (const WeightRule& rule : layer.weight_rules()) {
      const void* id = rule.variable.id();
      const bool is_trainable =
          std::any_of(trainable.begin(), trainable.end(), [&](const Variable& v) { return v.id() == id; });
      if (!is_trainable || !rule.regularizer.defined() || std::count(seen.begin(), seen.end(), id)) continue;
      seen.push_back(id);
      total = ops::add(total, rule.regularizer(graph_.variable(rule.variable)));
    }
  }
  return total;
}

Output StepBuilder::compute_loss(Output y, Output y_pred, Output sample_weight) {
  return compute_loss(std::vector<Output>{y}, std::vector<Output>{y_pred}, sample_weight);
}

std::vector<Output> StepBuilder::gradients(Output loss, const std::vector<Variable>& variables) {
  if (!loss.valid()) throw ValueError("step.gradients: the loss is undefined");
  if (loss.shape().rank() != 0) {
    throw ShapeError("step.gradients: the loss must be a scalar, got shape " + loss.shape().to_string());
  }
  std::vector<Output> nodes;
  for (const Variable& v : variables) nodes.push_back(graph_.variable(v));
  return strata::gradients(loss, nodes);
}

void StepBuilder::apply(optimizers::Optimizer optimizer, const std::vector<Output>& grads,
                        const std::vector<Variable>& variables) {
  if (!optimizer.defined()) throw ValueError("step.apply: the optimizer is undefined");
  if (grads.size() != variables.size()) {
    throw ValueError("step.apply: " + std::to_string(grads.size()) + " gradients for " +
                     std::to_string(variables.size()) + " variables");
  }
  // x_[0]'s rows are this process's share of the batch: what each process's gradient
  // is weighted by.
  const std::vector<Output> summed = all_reduce_bucket_bytes_ > 0 && !x_.empty()
                                         ? distribution::all_reduce_gradients(x_.front(), grads, all_reduce_bucket_bytes_)
                                         : grads;
  std::vector<std::pair<Variable, Output>> grads_and_vars;
  for (std::size_t i = 0; i < summed.size(); ++i) {
    if (summed[i].valid()) grads_and_vars.emplace_back(variables[i], summed[i]);
  }
  std::vector<Output> updates = optimizer.apply_gradients(graph_, grads_and_vars);
  current_.targets.insert(current_.targets.end(), updates.begin(), updates.end());
  const bool known = std::any_of(optimizers_.begin(), optimizers_.end(), [&](const optimizers::Optimizer& o) {
    return &o.impl() == &optimizer.impl();
  });
  if (!known) optimizers_.push_back(optimizer);
}

void StepBuilder::update_state(metrics::Metric metric, Output y_true, Output y_pred, Output sample_weight) {
  if (!metric.defined()) throw ValueError("step.update_state: the metric is undefined");
  std::vector<Output> stats = metric.build(y_true, y_pred, sample_weight);
  current_.updates.push_back({metric, current_.fetches.size(), stats.size()});
  current_.fetches.insert(current_.fetches.end(), stats.begin(), stats.end());
}

void StepBuilder::update_state(metrics::Metric metric, Output values) {
  if (!metric.defined()) throw ValueError("step.update_state: the metric is undefined");
  std::vector<Output> stats = metric.impl().build_values(values, {});
  current_.updates.push_back({metric, current_.fetches.size(), stats.size(), values.shape().rank() == 0});
  current_.fetches.insert(current_.fetches.end(), stats.begin(), stats.end());
}

// The layers' own state updates (BatchNormalization's moving statistics) made by the
// calls of this phase run with it.
void StepBuilder::close_phase() {
  const std::vector<Output> layer_updates = graph_.updates(training_);
  for (std::size_t i = layer_updates_taken_; i < layer_updates.size(); ++i) {
    current_.targets.push_back(layer_updates[i]);
  }
  layer_updates_taken_ = layer_updates.size();
  phases_.push_back(std::move(current_));
  current_ = Phase{};
}

void StepBuilder::next_phase() { close_phase(); }

std::vector<StepBuilder::Phase> StepBuilder::finish() {
  close_phase();
  std::vector<Phase> phases = std::move(phases_);
  phases_.clear();
  // An empty phase (next_phase() at the end) would only run for nothing.
  phases.erase(std::remove_if(phases.begin(), phases.end(),
                              [](const Phase& p) { return p.fetches.empty() && p.targets.empty(); }),
               phases.end());
  return phases;
}

}  // namespace strata
