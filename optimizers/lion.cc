#include "optimizers/lion.h"

#include "core/ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class LionImpl : public BaseOptimizer {
 public:
  explicit LionImpl(LionOptions o) : BaseOptimizer("Lion", o.name, o.learning_rate, common_options(o)), options(std::move(o)) {
    if (options.beta_1 <= 0 || options.beta_1 > 1) {
      throw ValueError("Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer degenerates to "
                       "SignSGD. Received: beta_1=" + std::to_string(options.beta_1));
    }
  }
  LionOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  void build(const std::vector<Variable>& variables) override { add_optimizer_variables(variables, {"momentum"}); }

  std::vector<Output> update_step_nodes(Graph& graph, const Variable& variable, Output g, Output lr,
                                        Output) override {
    const float b1 = static_cast<float>(options.beta_1), b2 = static_cast<float>(options.beta_2);
    Output w = graph.variable(variable);
    Output w_value = decayed_value(graph, variable, lr);
    Output m = graph.variable(slot(variable, "momentum"));
    Output direction = ops::sign(ops::add(ops::mul(m, b1), ops::mul(g, 1.f - b1)));
    return {ops::assign(w, ops::sub(w_value, ops::mul(direction, lr))),
            ops::assign(m, ops::add(ops::mul(m, b2), ops::mul(g, 1.f - b2)))};
  }
};

}  // namespace

Lion::Lion(LionOptions options) : Optimizer(std::make_shared<LionImpl>(std::move(options))) {}

const LionOptions& Lion::options() const { return static_cast<const LionImpl&>(impl()).options; }

}  // namespace strata::optimizers
