#include "optimizers/optimizer.h"

#include <algorithm>
#include <cctype>

#include "optimizers/adadelta.h"
#include "optimizers/adagrad.h"
#include "optimizers/adam.h"
#include "optimizers/adamax.h"
#include "optimizers/lion.h"
#include "optimizers/nadam.h"
#include "optimizers/rmsprop.h"
#include "optimizers/sgd.h"

namespace strata::optimizers {

OptimizerImpl& Optimizer::impl() const {
  if (!impl_) throw ValueError("use of an undefined Optimizer (default-constructed handle)");
  return *impl_;
}

std::vector<Output> Optimizer::apply(Graph& graph, const std::vector<Output>& grads,
                                     const std::vector<Variable>& variables) {
  if (grads.size() != variables.size()) {
    throw ValueError(name() + ": apply was given " + std::to_string(grads.size()) + " gradient(s) for " +
                     std::to_string(variables.size()) + " variable(s); pass one gradient per variable, in order");
  }
  std::vector<std::pair<Variable, Output>> grads_and_vars;
  grads_and_vars.reserve(grads.size());
  for (std::size_t i = 0; i < grads.size(); ++i) grads_and_vars.emplace_back(variables[i], grads[i]);
  return apply_gradients(graph, grads_and_vars);
}

std::int64_t Optimizer::iterations() const { return static_cast<std::int64_t>(impl().iterations().scalar()); }

float Optimizer::learning_rate() const { return static_cast<float>(impl().learning_rate().scalar()); }

void Optimizer::set_learning_rate(float rate) {
  if (!(rate >= 0.f)) throw ValueError(name() + ": learning_rate must be non-negative, got " + std::to_string(rate));
  impl().learning_rate().assign_scalar(rate);
}

Optimizer get(const std::string& identifier) {
  std::string id = identifier;
  std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return std::tolower(c); });
  if (id == "sgd") return SGD();
  if (id == "adam") return Adam();
  if (id == "rmsprop") return RMSprop();
  if (id == "adagrad") return Adagrad();
  if (id == "adamw") return AdamW();
  if (id == "nadam") return Nadam();
  if (id == "adamax") return Adamax();
  if (id == "adadelta") return Adadelta();
  if (id == "lion") return Lion();
  throw ValueError("Could not interpret optimizer identifier: '" + identifier +
                   "'. Known optimizers: 'sgd', 'adam', 'rmsprop', 'adagrad', 'adamw', 'nadam', 'adamax', "
                   "'adadelta', 'lion'");
}

}  // namespace strata::optimizers
