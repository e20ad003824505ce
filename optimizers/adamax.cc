#include "optimizers/adamax.h"

#include <cmath>

#include "core/ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class AdamaxImpl : public BaseOptimizer {
 public:
  explicit AdamaxImpl(AdamaxOptions o)
      : BaseOptimizer("Adamax", o.name, o.learning_rate, common_options(o)), options(std::move(o)) {}
  AdamaxOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  void build(const std::vector<Variable>& variables) override { add_optimizer_variables(variables, {"momentum", "norm"}); }

  std::vector<Output> update_step_nodes(Graph& graph, const Variable& variable, Output g, Output lr,
                                        Output iterations) override {
    const float b1 = static_cast<float>(options.beta_1), b2 = static_cast<float>(options.beta_2);
    Output local_step = ops::add(ops::cast(iterations, DType::float32), 1.f);
    Output beta_1_power = ops::exp(ops::mul(local_step, static_cast<float>(std::log(options.beta_1))));
    Output w = graph.variable(variable);
    Output w_value = decayed_value(graph, variable, lr);
    Output m = graph.variable(slot(variable, "momentum"));
    Output u = graph.variable(slot(variable, "norm"));
    Output m_new = ops::add(m, ops::mul(ops::sub(g, m), 1.f - b1));
    Output u_new = ops::maximum(ops::mul(u, b2), ops::abs(g));
    Output step = ops::div(ops::mul(m_new, lr),
                           ops::mul(ops::sub(1.f, beta_1_power), ops::add(u_new, static_cast<float>(options.epsilon))));
    return {ops::assign(m, m_new), ops::assign(u, u_new), ops::assign(w, ops::sub(w_value, step))};
  }
};

}  // namespace

Adamax::Adamax(AdamaxOptions options) : Optimizer(std::make_shared<AdamaxImpl>(std::move(options))) {}

const AdamaxOptions& Adamax::options() const { return static_cast<const AdamaxImpl&>(impl()).options; }

}  // namespace strata::optimizers
