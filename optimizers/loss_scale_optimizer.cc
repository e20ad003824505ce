#include "optimizers/loss_scale_optimizer.h"

#include <cmath>
#include <memory>
#include <utility>

#include "core/error.h"
#include "core/ops.h"
#include "optimizers/base_optimizer.h"

namespace strata::optimizers {

namespace {

class LossScaleOptimizerImpl : public OptimizerImpl {
 public:
  LossScaleOptimizerImpl(Optimizer inner, LossScaleOptimizerOptions o, bool made_by_compile)
      : inner_(std::move(inner)), options(std::move(o)), made_by_compile(made_by_compile) {
    if (!inner_.defined()) throw ValueError("LossScaleOptimizer: the inner optimizer is undefined");
    if (is_loss_scale_optimizer(inner_)) {
      throw ValueError("LossScaleOptimizer: the inner optimizer '" + inner_.name() + "' is a LossScaleOptimizer already");
    }
    if (!(options.initial_scale > 0.0) || !std::isfinite(options.initial_scale)) {
      throw ValueError("LossScaleOptimizer: initial_scale must be a positive finite number, got " +
                       std::to_string(options.initial_scale));
    }
    if (options.dynamic_growth_steps < 1 || options.dynamic_growth_steps > (std::int64_t{1} << 24)) {
      throw ValueError("LossScaleOptimizer: dynamic_growth_steps must be in [1, 2^24], got " +
                       std::to_string(options.dynamic_growth_steps));
    }
    if (options.name.empty()) options.name = auto_name("LossScaleOptimizer");
    iterations_ = Variable(options.name + "/iteration", Tensor(Shape{}, DType::int64), false);
    learning_rate_ = Variable(options.name + "/learning_rate", Tensor::scalar(0.f), false);
    step_counter_ = Variable(options.name + "/step_counter", Tensor(Shape{}, DType::int64), false);
    dynamic_scale_ =
        Variable(options.name + "/dynamic_scale", Tensor::scalar(static_cast<float>(options.initial_scale)), false);
  }

  std::string name() const override { return options.name; }
  std::string class_name() const override { return "LossScaleOptimizer"; }
  void config_fields(ConfigFields& f) const override {
    LossScaleOptimizerOptions copy = options;
    copy.fields(f);
  }

  Output scale_loss(Graph& graph, Output loss) override { return ops::mul(loss, graph.variable(dynamic_scale_)); }

  std::vector<Output> apply_gradients(Graph& graph,
                                      const std::vector<std::pair<Variable, Output>>& grads_and_vars) override {
    built_ = true;
    const Output scale = graph.variable(dynamic_scale_);
    const Output counter = graph.variable(step_counter_);
    // Keras's check_finite: every element of every gradient. x · 0 is 0 for a finite x and
    // NaN for an infinite or NaN one, so the sum of them all is 0 exactly when all are finite.
    Output nonfinite_sum;
    std::vector<std::pair<Variable, Output>> unscaled;
    for (const auto& [variable, grad] : grads_and_vars) {
      const Output probe = ops::reduce_sum(ops::mul(ops::cast(grad, DType::float32), 0.f));
      nonfinite_sum = nonfinite_sum.valid() ? ops::add(nonfinite_sum, probe) : probe;
      unscaled.emplace_back(variable, ops::div(grad, scale));
    }
    const Output finite = nonfinite_sum.valid() ? ops::equal(nonfinite_sum, ops::constant(graph, 0.f))
                                                 : ops::constant(graph, 1.f);
    std::vector<Output> updates;
    {
      RunIfScope only_if_finite(graph, finite);
      updates = inner_.apply_gradients(graph, unscaled);
    }
    // step_counter and dynamic_scale: after growth steps in a row, double the scale and
    // restart the count; after a skipped step, halve it and restart the count. The count
    // is compared in float32, exact up to 2^24 (the constructor keeps dynamic_growth_steps
    // at most that).
    const Output count = ops::cast(counter, DType::float32);
    const Output zero = ops::constant(graph, 0.f);
    const Output grow =
        ops::equal(count, ops::constant(graph, static_cast<float>(options.dynamic_growth_steps - 1)));
    const Output next_counter = ops::cast(
        ops::where(finite, ops::where(grow, zero, ops::add(count, 1.f)), zero), DType::int64);
    const Output next_scale =
        ops::where(finite, ops::where(grow, ops::mul(scale, 2.f), scale), ops::mul(scale, 0.5f));
    updates.push_back(ops::assign(counter, next_counter));
    updates.push_back(ops::assign(scale, next_scale));
    return updates;
  }

  void build_variables(const std::vector<Variable>& variables) override {
    built_ = true;
    inner_.build(variables);
  }
  // Keras's variables: its own (step_counter and dynamic_scale once built), then the inner
  // optimizer's.
  std::vector<Variable> variables() const override {
    std::vector<Variable> all{iterations_, learning_rate_};
    if (built_) {
      all.push_back(step_counter_);
      all.push_back(dynamic_scale_);
    }
    for (const Variable& v : inner_.variables()) all.push_back(v);
    return all;
  }
  Variable iterations() const override { return inner_.impl().iterations(); }
  std::vector<SlotVariable> slot_variables() const override { return inner_.impl().slot_variables(); }
  Variable learning_rate() const override { return inner_.impl().learning_rate(); }
  void update_learning_rate() override { inner_.impl().update_learning_rate(); }

  Optimizer inner_;
  LossScaleOptimizerOptions options;
  bool made_by_compile = false;
  bool built_ = false;
  Variable iterations_, learning_rate_, step_counter_, dynamic_scale_;
};

LossScaleOptimizerImpl& impl_of(const Optimizer& optimizer) {
  return static_cast<LossScaleOptimizerImpl&>(optimizer.impl());
}

}  // namespace

LossScaleOptimizer::LossScaleOptimizer(Optimizer inner_optimizer, LossScaleOptimizerOptions options)
    : Optimizer(std::make_shared<LossScaleOptimizerImpl>(std::move(inner_optimizer), std::move(options), false)) {}

LossScaleOptimizer LossScaleOptimizer::made_by_compile(Optimizer inner_optimizer) {
  LossScaleOptimizer out;
  static_cast<Optimizer&>(out) = Optimizer(std::make_shared<LossScaleOptimizerImpl>(
      std::move(inner_optimizer), LossScaleOptimizerOptions{.name = "loss_scale_optimizer"}, true));
  return out;
}

LossScaleOptimizer LossScaleOptimizer::from(const Optimizer& optimizer) {
  if (!is_loss_scale_optimizer(optimizer)) {
    throw ValueError("optimizer '" + (optimizer.defined() ? optimizer.name() : std::string("(undefined)")) +
                     "' is not a LossScaleOptimizer");
  }
  LossScaleOptimizer out;
  static_cast<Optimizer&>(out) = optimizer;
  return out;
}

const LossScaleOptimizerOptions& LossScaleOptimizer::options() const { return impl_of(*this).options; }
Optimizer LossScaleOptimizer::inner_optimizer() const { return impl_of(*this).inner_; }
float LossScaleOptimizer::dynamic_scale() const { return impl_of(*this).dynamic_scale_.value().to(Device{}).item(); }
std::int64_t LossScaleOptimizer::step_counter() const {
  return impl_of(*this).step_counter_.value().to(Device{}).data<std::int64_t>()[0];
}
bool LossScaleOptimizer::is_made_by_compile() const { return impl_of(*this).made_by_compile; }

bool is_loss_scale_optimizer(const Optimizer& optimizer) {
  return optimizer.defined() && dynamic_cast<const LossScaleOptimizerImpl*>(&optimizer.impl()) != nullptr;
}

}  // namespace strata::optimizers
