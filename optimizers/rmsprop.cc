#include "optimizers/rmsprop.h"

#include "core/ops/optimizer_update_ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class RMSpropImpl : public BaseOptimizer {
 public:
  explicit RMSpropImpl(RMSpropOptions o)
      : BaseOptimizer("RMSprop", o.name, o.learning_rate, common_options(o)), options(std::move(o)) {}
  RMSpropOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  // Keras 3 order: every velocity, then every momentum, then every average_gradient.
  void build(const std::vector<Variable>& variables) override {
    add_optimizer_variables(variables, {"velocity"});
    if (options.momentum > 0.0) add_optimizer_variables(variables, {"momentum"});
    if (options.centered) add_optimizer_variables(variables, {"average_gradient"});
  }
  Output update_step(Graph& graph, const Variable& variable, Output grad, Output lr, Output) override {
    Output momentum = options.momentum > 0.0 ? graph.variable(slot(variable, "momentum")) : Output{};
    Output average = options.centered ? graph.variable(slot(variable, "average_gradient")) : Output{};
    return ops::apply_rmsprop(graph.variable(variable), graph.variable(slot(variable, "velocity")), momentum,
                              average, grad, lr,
                              {.rho = options.rho, .momentum = options.momentum, .epsilon = options.epsilon,
                               .centered = options.centered});
  }
};

}  // namespace

RMSprop::RMSprop(RMSpropOptions options) : Optimizer(std::make_shared<RMSpropImpl>(std::move(options))) {}

const RMSpropOptions& RMSprop::options() const { return static_cast<const RMSpropImpl&>(impl()).options; }

}  // namespace strata::optimizers
