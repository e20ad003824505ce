// Optimizer: a handle to a Keras optimizer. apply_gradients() adds the update nodes
// for a train step to the graph once, at compile; every run of the step then updates
// the variables in place. learning_rate and iterations are variables, so callbacks can
// change the rate without recompiling and checkpoints can save them.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/graph.h"
#include "core/variable.h"
#include "optimizers/config_fields.h"

namespace strata::optimizers {

// One slot variable: the model variable it belongs to, its kind ("momentum") and itself.
struct SlotVariable {
  Variable variable;
  std::string slot_name;
  Variable slot;
};

class OptimizerImpl {
 public:
  virtual ~OptimizerImpl() = default;
  // Keras's config name ("adam", "sgd", ...), the optimizer's variable scope.
  virtual std::string name() const = 0;
  // Keras's class ("Adam", "AdamW", "RMSprop", ...): what files save it by.
  virtual std::string class_name() const = 0;
  // Walks Keras's config of this optimizer (a copy of its options, with its resolved name
  // and current learning rate), in get_config's order; saving writes it.
  virtual void config_fields(ConfigFields& fields) const = 0;
  // Adds nodes that update each variable from its gradient (plus slot variables such
  // as Adam's m and v, created once per variable) and increment `iterations` last.
  // Returns the update nodes: the train step's targets.
  virtual std::vector<Output> apply_gradients(Graph& graph,
                                              const std::vector<std::pair<Variable, Output>>& grads_and_vars) = 0;
  // Keras's optimizer.build(var_list): creates the slots of the variables not built for
  // yet, in the list's order (apply_gradients builds its variables the same way), so that
  // a file's optimizer state can be read into them before the first step.
  virtual void build_variables(const std::vector<Variable>& variables) = 0;
  // Every optimizer variable: iterations, learning_rate, then slots in creation order.
  virtual std::vector<Variable> variables() const = 0;
  virtual Variable iterations() const = 0;
  // The slots of variables(), in creation order, with what they belong to; empty for an
  // optimizer that does not say (its state is then not saved in .h5 files).
  virtual std::vector<SlotVariable> slot_variables() const { return {}; }
  virtual Variable learning_rate() const = 0;
  // Called by fit before every train step: an optimizer built with a learning-rate
  // schedule sets its learning_rate variable for the coming step.
  virtual void update_learning_rate() {}
  // Keras's optimizer.scale_loss: what a train step differentiates instead of the loss
  // (the LossScaleOptimizer's loss times its dynamic scale); the loss itself here.
  virtual Output scale_loss(Graph& graph, Output loss) { return loss; }
};

class Optimizer {
 public:
  Optimizer() = default;
  explicit Optimizer(std::shared_ptr<OptimizerImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return impl_ != nullptr; }
  std::string name() const { return impl().name(); }
  std::string class_name() const { return impl().class_name(); }
  std::vector<Output> apply_gradients(Graph& graph, const std::vector<std::pair<Variable, Output>>& grads_and_vars) {
    return impl().apply_gradients(graph, grads_and_vars);
  }
  // Keras's optimizer.apply(grads, trainable_variables): apply_gradients with the i-th
  // gradient paired with the i-th variable; the two lists must be as long as each other.
  std::vector<Output> apply(Graph& graph, const std::vector<Output>& grads, const std::vector<Variable>& variables);
  // Keras's optimizer.scale_loss(loss) (OptimizerImpl::scale_loss).
  Output scale_loss(Graph& graph, Output loss) { return impl().scale_loss(graph, loss); }
  // Keras's optimizer.build(var_list) (OptimizerImpl::build_variables).
  void build(const std::vector<Variable>& variables) { impl().build_variables(variables); }
  std::vector<Variable> variables() const { return impl().variables(); }
  std::int64_t iterations() const;
  float learning_rate() const;
  void set_learning_rate(float rate);
  OptimizerImpl& impl() const;

 private:
  std::shared_ptr<OptimizerImpl> impl_;
};

// Keras's string identifiers with default arguments: "sgd", "adam", "rmsprop", "adagrad".
Optimizer get(const std::string& identifier);

}  // namespace strata::optimizers
