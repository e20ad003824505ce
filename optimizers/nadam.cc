#include "optimizers/nadam.h"

#include <cmath>

#include "core/ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

// c^t for a float32 scalar t (Keras's ops.power with a tensor exponent).
Output power(double c, Output t) { return ops::exp(ops::mul(t, static_cast<float>(std::log(c)))); }

class NadamImpl : public BaseOptimizer {
 public:
  explicit NadamImpl(NadamOptions o)
      : BaseOptimizer("Nadam", o.name, o.learning_rate, common_options(o)),
        options(std::move(o)),
        u_product_(name() + "/variable", Tensor::scalar(1.f), false) {}
  NadamOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

  std::vector<Variable> variables() const override {
    auto all = BaseOptimizer::variables();
    all.push_back(u_product_);
    return all;
  }

 protected:
  void build(const std::vector<Variable>& variables) override {
    add_optimizer_variables(variables, {"momentum", "velocity"});
  }

  std::vector<Output> update_step_nodes(Graph& graph, const Variable& variable, Output g, Output lr,
                                        Output iterations) override {
    const float b1 = static_cast<float>(options.beta_1), b2 = static_cast<float>(options.beta_2);
    Output local_step = ops::add(ops::cast(iterations, DType::float32), 1.f);
    Output next_step = ops::add(local_step, 1.f);
    Output u_t = ops::mul(ops::sub(1.f, ops::mul(power(0.96, local_step), 0.5f)), b1);
    Output u_t_1 = ops::mul(ops::sub(1.f, ops::mul(power(0.96, next_step), 0.5f)), b1);
    // Keras assigns u_product = u_product·u_t before the variable updates of the step.
    Output u_product_var = graph.variable(u_product_);
    Output u_product_t = ops::mul(u_product_var, u_t);
    Output u_product_t_1 = ops::mul(u_product_t, u_t_1);
    Output beta_2_power = power(options.beta_2, local_step);
    Output w = graph.variable(variable);
    Output w_value = decayed_value(graph, variable, lr);
    Output m = graph.variable(slot(variable, "momentum"));
    Output v = graph.variable(slot(variable, "velocity"));
    Output m_new = ops::add(m, ops::mul(ops::sub(g, m), 1.f - b1));
    Output v_new = ops::add(v, ops::mul(ops::sub(ops::square(g), v), 1.f - b2));
    Output m_hat = ops::add(ops::div(ops::mul(u_t_1, m_new), ops::sub(1.f, u_product_t_1)),
                            ops::div(ops::mul(ops::sub(1.f, u_t), g), ops::sub(1.f, u_product_t)));
    Output v_hat = ops::div(v_new, ops::sub(1.f, beta_2_power));
    Output w_new = ops::sub(w_value, ops::div(ops::mul(m_hat, lr),
                                        ops::add(ops::sqrt(v_hat), static_cast<float>(options.epsilon))));
    std::vector<Output> out{ops::assign(m, m_new), ops::assign(v, v_new), ops::assign(w, w_new)};
    if (variable == first_variable_of_step()) out.push_back(ops::assign(u_product_var, u_product_t));
    return out;
  }

 private:
  Variable u_product_;
};

}  // namespace

Nadam::Nadam(NadamOptions options) : Optimizer(std::make_shared<NadamImpl>(std::move(options))) {}

const NadamOptions& Nadam::options() const { return static_cast<const NadamImpl&>(impl()).options; }

}  // namespace strata::optimizers
