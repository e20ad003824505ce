// BaseOptimizer: what every Keras 3 optimizer shares. It owns the "iteration" (int64)
// and "learning_rate" (float32) variables under the optimizer's name scope, creates
// slot variables once per model variable with Keras's names
// ("adam/dense_kernel_momentum"), skips variables without a gradient (as Keras warns),
// and increments `iterations` after every variable update of the step. Like Keras's
// apply(), gradients are clipped and weight decay is applied before the updates.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Keras's naming.auto_name of an optimizer without a name: snake_case(class_name) for the
// first of its class in the process, then "_1", "_2", ...
std::string auto_name(const std::string& class_name);

// The arguments every Keras 3 optimizer takes besides its own hyperparameters.
struct CommonOptions {
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
};

template <typename Options>
CommonOptions common_options(const Options& o) {
  return {o.weight_decay, o.clipnorm, o.clipvalue, o.global_clipnorm};
}

class BaseOptimizer : public OptimizerImpl {
 public:
  // `name` empty: Keras's auto name, snake_case(class_name) made unique per process
  // ("adam", "adam_1", ...). Throws ValueError when more than one clipping option is set.
  BaseOptimizer(const std::string& class_name, const std::string& name, const LearningRate& learning_rate,
                const CommonOptions& common = {});

  std::string name() const override { return name_; }
  std::string class_name() const override { return class_name_; }
  std::vector<Output> apply_gradients(Graph& graph,
                                      const std::vector<std::pair<Variable, Output>>& grads_and_vars) final;
  void build_variables(const std::vector<Variable>& variables) final;
  std::vector<Variable> variables() const override;
  Variable iterations() const override { return iterations_; }
  std::vector<SlotVariable> slot_variables() const override { return slot_variables_; }
  Variable learning_rate() const override { return learning_rate_; }
  // With a schedule: learning_rate = schedule(iterations).
  void update_learning_rate() override;

 protected:
  // Keras's build(): creates this optimizer's slots for variables seen for the first
  // time (usually with add_optimizer_variables, which fixes their order).
  virtual void build(const std::vector<Variable>& variables) = 0;
  // Keras's update_step(): adds the stateful node updating `variable` from `grad`.
  virtual Output update_step(Graph& graph, const Variable& variable, Output grad, Output lr, Output iterations) {
    throw NotImplementedError(name_ + ": update_step is not implemented");
  }
  // Optimizers written with plain ops (several assigns per variable) override this one;
  // by default it is update_step's single fused node. The assigns of a step all read the
  // values from before the step: compute every new value from the gradient and the
  // slots' old values, then assign.
  virtual std::vector<Output> update_step_nodes(Graph& graph, const Variable& variable, Output grad, Output lr,
                                                Output iterations) {
    return {update_step(graph, variable, grad, lr, iterations)};
  }

  // Walks `options` as Keras's get_config reports it: the resolved name, and the current
  // rate (a callback may have changed it) unless a schedule drives the rate.
  template <typename Options>
  void options_config_fields(Options options, ConfigFields& fields) const {
    options.name = name_;
    if (!schedule_.defined()) options.learning_rate = learning_rate_.scalar();  // from wherever it lives
    options.fields(fields);
  }

  // Keras's add_optimizer_variables: for each variable, one slot per name (interleaved),
  // named "<variable path with / as _>_<slot name>", filled with `initial_value`.
  void add_optimizer_variables(const std::vector<Variable>& variables, const std::vector<std::string>& names,
                               float initial_value = 0.f);
  // The variable's value as the step's update sees it: after the decoupled weight decay
  // (w − w·wd·lr) when weight_decay is set. Optimizers written with plain ops read the
  // variable through this, since their assigns all see the values from before the step.
  Output decayed_value(Graph& graph, const Variable& variable, Output lr) const;
  // The first variable updated by the apply_gradients call in progress (for per-step
  // state such as Nadam's u_product, assigned once per step).
  const Variable& first_variable_of_step() const { return first_of_step_; }
  // The slot `slot_name` of `variable`; throws ValueError when it was never built.
  const Variable& slot(const Variable& variable, const std::string& slot_name) const;

 private:
  // Keras's _clip_gradients: clipnorm per gradient, else global_clipnorm, else clipvalue.
  std::vector<Output> clip_gradients(const std::vector<Output>& grads) const;

  std::string class_name_;
  std::string name_;
  CommonOptions common_;
  Variable iterations_;
  Variable learning_rate_;
  LearningRateSchedule schedule_;
  Variable first_of_step_;
  std::vector<Variable> slots_;                                        // creation order
  std::vector<SlotVariable> slot_variables_;                           // the same, described
  std::map<std::pair<const void*, std::string>, Variable> slot_index_;  // (variable, slot name)
  std::map<const void*, Variable> built_;  // the variables built for (kept alive)
};

}  // namespace strata::optimizers
