// Optimizer handles: identifiers, names, slot creation, skipped variables, the
// learning-rate variable, the iteration counter, and the fused update ops' contract.
#include <gtest/gtest.h>

#include "core/autodiff.h"
#include "core/op_registry.h"
#include "core/ops.h"
#include "core/program.h"
#include "losses/regression_losses.h"
#include "optimizers/adadelta.h"
#include "optimizers/adagrad.h"
#include "optimizers/adam.h"
#include "optimizers/adamax.h"
#include "optimizers/classes.h"
#include "optimizers/lion.h"
#include "optimizers/nadam.h"
#include "optimizers/rmsprop.h"
#include "optimizers/sgd.h"

using namespace strata;

namespace optimizer_test {

TEST(OptimizerGet, ResolvesKerasIdentifiersWithDefaults) {
  auto sgd = optimizers::get("sgd");
  EXPECT_NEAR(sgd.learning_rate(), 0.01f, 1e-9);
  EXPECT_NEAR(optimizers::get("adam").learning_rate(), 0.001f, 1e-9);
  EXPECT_NEAR(optimizers::get("rmsprop").learning_rate(), 0.001f, 1e-9);
  EXPECT_NEAR(optimizers::get("adagrad").learning_rate(), 0.001f, 1e-9);
  EXPECT_EQ(sgd.iterations(), 0);
  try {
    optimizers::get("adamax_turbo");
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("adamax_turbo"), std::string::npos);
    EXPECT_NE(msg.find("'rmsprop'"), std::string::npos);
  }
}

TEST(OptimizerDefaults, MatchKeras3Signatures) {
  optimizers::Adam adam;
  EXPECT_EQ(adam.options().beta_1, 0.9);
  EXPECT_EQ(adam.options().beta_2, 0.999);
  EXPECT_EQ(adam.options().epsilon, 1e-7);
  EXPECT_FALSE(adam.options().amsgrad);
  optimizers::RMSprop rms;
  EXPECT_EQ(rms.options().rho, 0.9);
  EXPECT_EQ(rms.options().momentum, 0.0);
  EXPECT_FALSE(rms.options().centered);
  EXPECT_EQ(optimizers::Adagrad().options().initial_accumulator_value, 0.1);
  EXPECT_EQ(optimizers::SGD().options().learning_rate, 0.01);
}

TEST(OptimizerNames, FollowKerasAutoNamingAndPaths) {
  optimizers::RMSprop named({.name = "my_rms"});
  EXPECT_EQ(named.name(), "my_rms");
  EXPECT_EQ(named.impl().iterations().path(), "my_rms/iteration");
  EXPECT_EQ(named.impl().learning_rate().path(), "my_rms/learning_rate");
  EXPECT_EQ(named.impl().iterations().dtype(), DType::int64);
  EXPECT_EQ(named.impl().learning_rate().dtype(), DType::float32);
  // Auto names: snake_case of the class, then _1, _2 ... like Keras's auto_name.
  std::string first = optimizers::RMSprop().name();
  std::string second = optimizers::RMSprop().name();
  EXPECT_EQ(first.rfind("rm_sprop", 0), 0u) << first;
  EXPECT_NE(first, second);
}

TEST(Optimizer, SkipsVariablesWithoutGradientAndCountsIterationsAfterUpdates) {
  Variable used("dense/kernel", Tensor::filled({2}, 1.f));
  Variable unused("other/bias", Tensor::filled({2}, 1.f));
  optimizers::SGD sgd({.learning_rate = 0.5, .name = "sgd"});
  Graph g;
  Output x = g.placeholder({Shape{2}}, "x");
  Output y = ops::reduce_sum(ops::mul(g.variable(used), x));
  auto grads = gradients(y, {g.variable(used), g.variable(unused)});
  ASSERT_FALSE(grads[1].valid());
  auto updates = sgd.apply_gradients(g, {{used, grads[0]}, {unused, grads[1]}});
  Program step(g, {x}, {y}, updates);
  auto out = step.run({Tensor::from_vector<float>({2}, {1.f, 2.f})});
  EXPECT_EQ(out[0].item(), 3.f);  // read before the update
  EXPECT_EQ(used.value().item(0), 0.5f);
  EXPECT_EQ(used.value().item(1), 0.f);
  EXPECT_EQ(unused.value().item(0), 1.f);
  EXPECT_EQ(sgd.iterations(), 1);
  // Every update node is stateful and the counter is the last one of the step.
  auto order = step.execution_order();
  EXPECT_EQ(g.node(order.back()).op, "assign_add");
}

// Keras's loop from scratch: tape.gradient(loss, variables), then optimizer.apply(grads,
// variables), each gradient paired with the variable at its position.
TEST(Optimizer, ApplyPairsEachGradientWithTheVariableAtItsPosition) {
  Variable used("dense/kernel", Tensor::filled({2}, 1.f));
  Variable unused("other/bias", Tensor::filled({2}, 1.f));
  Variable scale("dense/scale", Tensor::filled({2}, 2.f));
  optimizers::SGD sgd({.learning_rate = 0.5, .name = "sgd"});
  Graph g;
  Output x = g.placeholder({Shape{2}}, "x");
  Output y = ops::reduce_sum(ops::mul(ops::mul(g.variable(used), g.variable(scale)), x));
  const std::vector<Variable> variables{used, unused, scale};
  std::vector<Output> grads = gradients(y, variables);
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_TRUE(grads[0].valid());   // through the node y reads (a new node would have no gradient)
  EXPECT_FALSE(grads[1].valid());  // y does not read it: Keras's None
  Program step(g, {x}, {y}, sgd.apply(g, grads, variables));
  step.run({Tensor::from_vector<float>({2}, {1.f, 2.f})});
  // d/dused = scale * x = (2, 4); d/dscale = used * x = (1, 2); lr 0.5.
  EXPECT_EQ(used.value().item(0), 0.f);
  EXPECT_EQ(used.value().item(1), -1.f);
  EXPECT_EQ(scale.value().item(0), 1.5f);
  EXPECT_EQ(scale.value().item(1), 1.f);
  EXPECT_EQ(unused.value().item(0), 1.f);
  EXPECT_EQ(sgd.iterations(), 1);
  try {
    sgd.apply(g, grads, {used, scale});
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("3 gradient(s) for 2 variable(s)"), std::string::npos) << e.what();
  }
}

TEST(Optimizer, LearningRateIsAVariableChangedWithoutRecompiling) {
  Variable w("w", Tensor::filled({1}, 0.f));
  optimizers::SGD sgd({.learning_rate = 0.1});
  Graph g;
  Output grad = g.placeholder({Shape{1}}, "grad");
  Program step(g, {grad}, {}, sgd.apply_gradients(g, {{w, grad}}));
  const int nodes = g.num_nodes();
  step.run({Tensor::filled({1}, 1.f)});
  EXPECT_NEAR(w.value().item(), -0.1f, 1e-7);
  sgd.set_learning_rate(1.f);
  EXPECT_EQ(sgd.learning_rate(), 1.f);
  step.run({Tensor::filled({1}, 1.f)});
  EXPECT_NEAR(w.value().item(), -1.1f, 1e-6);
  EXPECT_EQ(g.num_nodes(), nodes);
  EXPECT_THROW(sgd.set_learning_rate(-1.f), ValueError);
}

TEST(Optimizer, SlotsAreCreatedOncePerVariableAcrossCompiles) {
  Variable w("dense/kernel", Tensor::filled({3}, 1.f));
  optimizers::Adam adam({.amsgrad = true, .name = "adam"});
  for (int compile = 0; compile < 2; ++compile) {
    Graph g;
    Output grad = g.placeholder({Shape{3}}, "grad");
    Program step(g, {grad}, {}, adam.apply_gradients(g, {{w, grad}}));
    step.run({Tensor::filled({3}, 0.5f)});
  }
  std::vector<std::string> paths;
  for (const auto& v : adam.variables()) paths.push_back(v.path());
  EXPECT_EQ(paths, (std::vector<std::string>{"adam/iteration", "adam/learning_rate", "adam/dense_kernel_momentum",
                                             "adam/dense_kernel_velocity", "adam/dense_kernel_velocity_hat"}));
  EXPECT_EQ(adam.iterations(), 2);
}

TEST(Optimizer, RejectsMismatchedGradientShapes) {
  Variable w("w", Tensor::filled({3}, 1.f));
  Graph g;
  Output grad = g.placeholder({Shape{4}}, "grad");
  EXPECT_THROW(optimizers::Adam().apply_gradients(g, {{w, grad}}), ShapeError);
}

TEST(OptimizerUpdateOps, AreStatefulAndNotDifferentiable) {
  for (const char* op : {"apply_sgd", "apply_adam", "apply_rmsprop", "apply_adagrad"}) {
    const OpDef& def = OpRegistry::global().get(op);
    EXPECT_TRUE(def.stateful) << op;
    EXPECT_FALSE(def.differentiable) << op;
  }
}

TEST(Optimizer, AdamFitsALinearRegression) {
  // y = 2x − 1 from 8 points, full batch; the loss must fall by orders of magnitude.
  Variable kernel("dense/kernel", Tensor::filled({1, 1}, 0.f));
  Variable bias("dense/bias", Tensor::filled({1}, 0.f));
  optimizers::Adam adam({.learning_rate = 0.1});
  Graph g;
  Output x = g.placeholder({Shape{kUnknownDim, 1}}, "x");
  Output y = g.placeholder({Shape{kUnknownDim, 1}}, "y");
  Output pred = ops::add(ops::matmul(x, g.variable(kernel)), g.variable(bias));
  Output loss = losses::MeanSquaredError()(y, pred);
  auto grads = gradients(loss, {g.variable(kernel), g.variable(bias)});
  Program step(g, {x, y}, {loss}, adam.apply_gradients(g, {{kernel, grads[0]}, {bias, grads[1]}}));
  std::vector<float> xs, ys;
  for (int i = 0; i < 8; ++i) {
    xs.push_back(static_cast<float>(i) / 4.f - 1.f);
    ys.push_back(2.f * xs.back() - 1.f);
  }
  Tensor tx = Tensor::from_vector({8, 1}, xs), ty = Tensor::from_vector({8, 1}, ys);
  float first = step.run({tx, ty})[0].item(), last = first;
  for (int i = 0; i < 300; ++i) last = step.run({tx, ty})[0].item();
  EXPECT_LT(last, first * 1e-3f);
  EXPECT_NEAR(kernel.value().item(), 2.f, 0.05f);
  EXPECT_NEAR(bias.value().item(), -1.f, 0.05f);
  EXPECT_EQ(adam.iterations(), 301);
}

TEST(Optimizer, AcceptsAtMostOneClippingOption) {
  EXPECT_THROW(optimizers::Adam({.clipnorm = 1.0, .clipvalue = 0.5}), ValueError);
  EXPECT_THROW(optimizers::SGD({.clipnorm = 1.0, .global_clipnorm = 1.0}), ValueError);
  EXPECT_NO_THROW(optimizers::RMSprop({.weight_decay = 0.01, .global_clipnorm = 1.0}));
}

// Reads nothing: what a config without keys gives (the options' defaults).
class NoFields : public optimizers::ConfigFields {
 public:
  void operator()(const char*, bool&) override {}
  void operator()(const char*, std::int64_t&) override {}
  void operator()(const char*, double&) override {}
  void operator()(const char*, std::optional<double>&) override {}
  void operator()(const char*, std::string&) override {}
  void operator()(const char*, std::vector<std::int64_t>&) override {}
  void operator()(const char*, std::vector<double>&) override {}
  void operator()(const char*, optimizers::LearningRate&) override {}
};

TEST(OptimizerClasses, EachOptimizerKnowsItsKerasClassAndIsBuiltByIt) {
  const std::vector<std::pair<optimizers::Optimizer, std::string>> cases = {
      {optimizers::SGD(), "SGD"},         {optimizers::Adam(), "Adam"},       {optimizers::AdamW(), "AdamW"},
      {optimizers::RMSprop(), "RMSprop"}, {optimizers::Adagrad(), "Adagrad"}, {optimizers::Adadelta(), "Adadelta"},
      {optimizers::Adamax(), "Adamax"},   {optimizers::Nadam(), "Nadam"},     {optimizers::Lion(), "Lion"}};
  EXPECT_EQ(optimizers::optimizer_class_names().size(), cases.size());
  NoFields none;
  for (const auto& [o, cls] : cases) {
    EXPECT_EQ(o.class_name(), cls);
    optimizers::Optimizer built = optimizers::optimizer_from_fields(cls, none);
    ASSERT_TRUE(built.defined()) << cls;
    EXPECT_EQ(built.class_name(), cls);
    EXPECT_EQ(built.learning_rate(), o.learning_rate()) << cls;  // Keras's default rate
  }
  EXPECT_EQ(optimizers::optimizer_from_fields("adamw", none).class_name(), "AdamW");  // as Keras: any case
  EXPECT_FALSE(optimizers::optimizer_from_fields("Ftrl", none).defined());
  EXPECT_EQ(optimizers::AdamW().name().rfind("adam_w", 0), 0u);  // Keras's auto name
  EXPECT_EQ(optimizers::schedule_class_names().size(), 6u);
  EXPECT_EQ(optimizers::schedule_from_fields("CosineDecayRestarts", none).class_name(), "CosineDecayRestarts");
  EXPECT_FALSE(optimizers::schedule_from_fields("WarmUp", none).defined());
}

TEST(Schedules, KnowTheirKerasConfig) {
  auto s = optimizers::schedules::PolynomialDecay({.initial_learning_rate = 0.1, .decay_steps = 10, .power = 2.0});
  EXPECT_EQ(s.class_name(), "PolynomialDecay");
  ASSERT_TRUE(s.has_config());
  EXPECT_NEAR(s(5), (0.1 - 1e-4) * 0.25 + 1e-4, 1e-12);
  EXPECT_NEAR(s(50), 1e-4, 1e-12);  // capped at decay_steps without cycle
  EXPECT_FALSE(optimizers::LearningRateSchedule("Mine", [](std::int64_t) { return 0.1; }).has_config());
  EXPECT_THROW(optimizers::schedules::InverseTimeDecay({.decay_steps = 0}), ValueError);
}

TEST(Schedules, CosineDecayWithWarmupTargetAndNoWarmupStepsDecaysFromTheTarget) {
  // Keras 3.15: a warmup_target switches warm-up on even with warmup_steps 0.
  auto s = optimizers::schedules::CosineDecay(
      {.initial_learning_rate = 1.0, .decay_steps = 10, .warmup_target = 2.0, .warmup_steps = 0});
  EXPECT_DOUBLE_EQ(s(0), 2.0);
  EXPECT_NEAR(s(5), 1.0, 1e-12);  // 2 * (1 + cos(pi / 2)) / 2
}

}  // namespace optimizer_test
