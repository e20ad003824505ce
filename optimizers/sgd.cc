#include "optimizers/sgd.h"

#include "core/ops/optimizer_update_ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class SGDImpl : public BaseOptimizer {
 public:
  explicit SGDImpl(SGDOptions o) : BaseOptimizer("SGD", o.name, o.learning_rate, common_options(o)), options(std::move(o)) {
    if (options.momentum < 0.0 || options.momentum > 1.0) {
      throw ValueError("SGD: momentum must be in [0, 1], got " + std::to_string(options.momentum));
    }
  }
  SGDOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  void build(const std::vector<Variable>& variables) override {
    if (options.momentum != 0.0) add_optimizer_variables(variables, {"momentum"});
  }
  Output update_step(Graph& graph, const Variable& variable, Output grad, Output lr, Output) override {
    Output m = options.momentum != 0.0 ? graph.variable(slot(variable, "momentum")) : Output{};
    return ops::apply_sgd(graph.variable(variable), m, grad, lr,
                          {.momentum = options.momentum, .nesterov = options.nesterov});
  }
};

}  // namespace

SGD::SGD(SGDOptions options) : Optimizer(std::make_shared<SGDImpl>(std::move(options))) {}

const SGDOptions& SGD::options() const { return static_cast<const SGDImpl&>(impl()).options; }

}  // namespace strata::optimizers
