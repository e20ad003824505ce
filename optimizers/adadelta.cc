#include "optimizers/adadelta.h"

#include "core/ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class AdadeltaImpl : public BaseOptimizer {
 public:
  explicit AdadeltaImpl(AdadeltaOptions o)
      : BaseOptimizer("Adadelta", o.name, o.learning_rate, common_options(o)), options(std::move(o)) {}
  AdadeltaOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  void build(const std::vector<Variable>& variables) override {
    add_optimizer_variables(variables, {"accumulated_grad", "accumulated_delta_var"});
  }

  std::vector<Output> update_step_nodes(Graph& graph, const Variable& variable, Output g, Output lr,
                                        Output) override {
    const float rho = static_cast<float>(options.rho), eps = static_cast<float>(options.epsilon);
    Output w = graph.variable(variable);
    Output w_value = decayed_value(graph, variable, lr);
    Output acc_grad = graph.variable(slot(variable, "accumulated_grad"));
    Output acc_delta = graph.variable(slot(variable, "accumulated_delta_var"));
    auto rms = [eps](Output x) { return ops::sqrt(ops::add(x, eps)); };
    Output acc_grad_new = ops::add(ops::mul(acc_grad, rho), ops::mul(ops::square(g), 1.f - rho));
    Output delta = ops::neg(ops::div(ops::mul(rms(acc_delta), g), rms(acc_grad_new)));
    Output acc_delta_new = ops::add(ops::mul(acc_delta, rho), ops::mul(ops::square(delta), 1.f - rho));
    return {ops::assign(acc_grad, acc_grad_new), ops::assign(acc_delta, acc_delta_new),
            ops::assign(w, ops::add(w_value, ops::mul(delta, lr)))};
  }
};

}  // namespace

Adadelta::Adadelta(AdadeltaOptions options) : Optimizer(std::make_shared<AdadeltaImpl>(std::move(options))) {}

const AdadeltaOptions& Adadelta::options() const { return static_cast<const AdadeltaImpl&>(impl()).options; }

}  // namespace strata::optimizers
