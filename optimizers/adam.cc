#include "optimizers/adam.h"

#include "core/ops/optimizer_update_ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class AdamImpl : public BaseOptimizer {
 public:
  explicit AdamImpl(AdamOptions o, const char* class_name = "Adam")
      : BaseOptimizer(class_name, o.name, o.learning_rate, common_options(o)), options(std::move(o)) {}
  AdamOptions options;
  void config_fields(ConfigFields& f) const override { options_config_fields(options, f); }

 protected:
  // Keras 3 order: momentum and velocity interleaved per variable, then velocity_hat.
  void build(const std::vector<Variable>& variables) override {
    add_optimizer_variables(variables, {"momentum", "velocity"});
    if (options.amsgrad) add_optimizer_variables(variables, {"velocity_hat"});
  }
  Output update_step(Graph& graph, const Variable& variable, Output grad, Output lr, Output iterations) override {
    Output v_hat = options.amsgrad ? graph.variable(slot(variable, "velocity_hat")) : Output{};
    return ops::apply_adam(graph.variable(variable), graph.variable(slot(variable, "momentum")),
                           graph.variable(slot(variable, "velocity")), v_hat, grad, lr, iterations,
                           {.beta_1 = options.beta_1, .beta_2 = options.beta_2, .epsilon = options.epsilon,
                            .amsgrad = options.amsgrad});
  }
};

}  // namespace

Adam::Adam(AdamOptions options) : Optimizer(std::make_shared<AdamImpl>(std::move(options))) {}

AdamW::AdamW(AdamWOptions o)
    : Optimizer(std::make_shared<AdamImpl>(AdamOptions{.learning_rate = o.learning_rate,
                                                       .beta_1 = o.beta_1,
                                                       .beta_2 = o.beta_2,
                                                       .epsilon = o.epsilon,
                                                       .amsgrad = o.amsgrad,
                                                       .weight_decay = o.weight_decay,
                                                       .clipnorm = o.clipnorm,
                                                       .clipvalue = o.clipvalue,
                                                       .global_clipnorm = o.global_clipnorm,
                                                       .name = o.name},
                                           "AdamW")) {}

const AdamOptions& Adam::options() const { return static_cast<const AdamImpl&>(impl()).options; }

}  // namespace strata::optimizers
