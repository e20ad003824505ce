#include "optimizers/adagrad.h"

#include "core/ops/optimizer_update_ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class AdagradImpl : public BaseOptimizer {
 public:
  explicit AdagradImpl(AdagradOptions o)
      : BaseOptimizer("Adagrad", o.name, o.learning_rate, common_options(o)), options(std::move(o)) {}
  AdagradOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  void build(const std::vector<Variable>& variables) override {
    add_optimizer_variables(variables, {"accumulator"}, static_cast<float>(options.initial_accumulator_value));
  }
  Output update_step(Graph& graph, const Variable& variable, Output grad, Output lr, Output) override {
    return ops::apply_adagrad(graph.variable(variable), graph.variable(slot(variable, "accumulator")), grad, lr,
                              options.epsilon);
  }
};

}  // namespace

Adagrad::Adagrad(AdagradOptions options) : Optimizer(std::make_shared<AdagradImpl>(std::move(options))) {}

const AdagradOptions& Adagrad::options() const { return static_cast<const AdagradImpl&>(impl()).options; }

}  // namespace strata::optimizers
