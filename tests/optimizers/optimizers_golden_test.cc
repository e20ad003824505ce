// Every optimizer configuration, five steps on one variable with fixed gradients,
// against real Keras 3 (tests/data/optimizers_golden.json): the variable after each
// step, the iteration count, and the optimizer's variable paths in Keras's order.
#include <gtest/gtest.h>

#include "core/program.h"
#include "optimizers/adagrad.h"
#include "optimizers/adam.h"
#include "optimizers/rmsprop.h"
#include "optimizers/sgd.h"
#include "tests/training_golden.h"

using namespace strata;
using nlohmann::json;

namespace {

optimizers::Optimizer make_optimizer(const std::string& kind, const json& c) {
  if (kind == "sgd") {
    return optimizers::SGD({.learning_rate = c.value("learning_rate", 0.01),
                            .momentum = c.value("momentum", 0.0),
                            .nesterov = c.value("nesterov", false),
                            .name = kind});
  }
  if (kind == "adam") {
    return optimizers::Adam({.learning_rate = c.value("learning_rate", 0.001),
                             .beta_1 = c.value("beta_1", 0.9),
                             .beta_2 = c.value("beta_2", 0.999),
                             .epsilon = c.value("epsilon", 1e-7),
                             .amsgrad = c.value("amsgrad", false),
                             .name = kind});
  }
  if (kind == "rmsprop") {
    return optimizers::RMSprop({.learning_rate = c.value("learning_rate", 0.001),
                                .rho = c.value("rho", 0.9),
                                .momentum = c.value("momentum", 0.0),
                                .epsilon = c.value("epsilon", 1e-7),
                                .centered = c.value("centered", false),
                                .name = kind});
  }
  if (kind == "adagrad") {
    return optimizers::Adagrad({.learning_rate = c.value("learning_rate", 0.001),
                                .initial_accumulator_value = c.value("initial_accumulator_value", 0.1),
                                .epsilon = c.value("epsilon", 1e-7),
                                .name = kind});
  }
  throw std::runtime_error("unknown optimizer in golden file: " + kind);
}

}  // namespace

TEST(Optimizers, MatchKerasGoldensOverFiveSteps) {
  json golden = golden::load_golden("optimizers_golden.json");
  ASSERT_GE(golden.at("cases").size(), 13u);
  for (const auto& c : golden.at("cases")) {
    SCOPED_TRACE(c.at("optimizer").get<std::string>() + " " + c.at("config").dump());
    Variable kernel(c.at("variable_path"), golden::golden_tensor(c.at("initial")));
    optimizers::Optimizer opt = make_optimizer(c.at("optimizer"), c.at("config"));
    Graph g;
    Output grad = g.placeholder({kernel.shape()}, "grad");
    std::vector<Output> updates = opt.apply_gradients(g, {{kernel, grad}});
    Program step(g, {grad}, {}, updates);
    const auto& grads = c.at("gradients");
    for (std::size_t s = 0; s < grads.size(); ++s) {
      SCOPED_TRACE("after step " + std::to_string(s + 1));
      step.run({golden::golden_tensor(grads[s])});
      golden::expect_matches_golden(kernel.value(), c.at("steps")[s]);
    }
    EXPECT_EQ(opt.iterations(), c.at("iterations").get<std::int64_t>());
    std::vector<std::string> paths;
    for (const auto& v : opt.variables()) paths.push_back(v.path());
    EXPECT_EQ(paths, c.at("optimizer_variables").get<std::vector<std::string>>());
  }
}
