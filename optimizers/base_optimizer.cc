#include "optimizers/base_optimizer.h"

#include <cctype>
#include <iostream>
#include <mutex>
#include <regex>
#include <string>

#include "core/ops.h"

namespace strata::optimizers {

namespace {

// Keras's naming.to_snake_case: "RMSprop" -> "rm_sprop", "SGD" -> "sgd".
std::string to_snake_case(const std::string& name) {
  std::string s = std::regex_replace(name, std::regex("(.)([A-Z][a-z]+)"), "$1_$2");
  s = std::regex_replace(s, std::regex("([a-z])([A-Z])"), "$1_$2");
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string slot_prefix(const Variable& variable) {
  std::string p = variable.path();
  for (auto& c : p) {
    if (c == '/') c = '_';
  }
  return p;
}

}  // namespace

std::string auto_name(const std::string& class_name) {
  static std::mutex mutex;
  static std::map<std::string, int> counts;
  std::lock_guard<std::mutex> lock(mutex);
  std::string base = to_snake_case(class_name);
  int& count = counts[base];
  std::string name = count == 0 ? base : base + "_" + std::to_string(count);
  ++count;
  return name;
}

BaseOptimizer::BaseOptimizer(const std::string& class_name, const std::string& name,
                             const LearningRate& learning_rate_arg, const CommonOptions& common)
    : class_name_(class_name),
      name_(name.empty() ? auto_name(class_name) : name),
      common_(common),
      iterations_(name_ + "/iteration", Tensor(Shape{}, DType::int64), false),
      learning_rate_(name_ + "/learning_rate", Tensor::scalar(static_cast<float>(double(learning_rate_arg))), false),
      schedule_(learning_rate_arg.schedule()) {
  const double learning_rate = learning_rate_arg;
  if (!(learning_rate >= 0.0)) {
    throw ValueError(class_name + ": learning_rate must be a non-negative number, got " +
                     std::to_string(learning_rate));
  }
  if (common.clipnorm.has_value() + common.clipvalue.has_value() + common.global_clipnorm.has_value() > 1) {
    throw ValueError(class_name + ": only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set");
  }
}

std::vector<Output> BaseOptimizer::clip_gradients(const std::vector<Output>& grads) const {
  auto positive = [](const std::optional<double>& v) { return v.has_value() && *v > 0.0; };
  std::vector<Output> out;
  if (positive(common_.clipnorm)) {
    // g·c / max(‖g‖, c): unchanged when the norm is at most c (or zero).
    const float c = static_cast<float>(*common_.clipnorm);
    for (const Output& g : grads) {
      Output norm = ops::sqrt(ops::reduce_sum(ops::square(g)));
      out.push_back(ops::div(ops::mul(g, c), ops::maximum(norm, c)));
    }
  } else if (positive(common_.global_clipnorm)) {
    if (grads.empty()) return grads;
    const float c = static_cast<float>(*common_.global_clipnorm);
    Output squared = ops::reduce_sum(ops::square(grads.front()));
    for (std::size_t i = 1; i < grads.size(); ++i) squared = ops::add(squared, ops::reduce_sum(ops::square(grads[i])));
    Output norm = ops::sqrt(squared);
    // c·min(1/‖g‖, 1/c), plus (‖g‖ − ‖g‖) so that a non-finite norm gives NaN, as Keras.
    Output scale = ops::mul(ops::minimum(ops::div(1.f, norm), static_cast<float>(1.0 / *common_.global_clipnorm)), c);
    scale = ops::add(scale, ops::sub(norm, norm));
    for (const Output& g : grads) out.push_back(ops::mul(g, scale));
  } else if (positive(common_.clipvalue)) {
    const float v = static_cast<float>(*common_.clipvalue);
    for (const Output& g : grads) out.push_back(ops::clip(g, -v, v));
  } else {
    return grads;
  }
  return out;
}

void BaseOptimizer::build_variables(const std::vector<Variable>& variables) {
  // Every variable checked before any is recorded as built: a refusal leaves none half built.
  for (std::size_t i = 0; i < variables.size(); ++i) {
    const Variable& variable = variables[i];
    if (!variable.defined()) {
      throw ValueError(name_ + ": variable " + std::to_string(i) + " of the " + std::to_string(variables.size()) +
                       " to update is undefined");
    }
    if (variable.dtype() != DType::float32) {
      throw ValueError(name_ + ": variable '" + variable.path() + "' has dtype " + to_string(variable.dtype()) +
                       "; optimizers update float32 variables only");
    }
  }
  std::vector<Variable> fresh;
  for (const Variable& variable : variables) {
    if (built_.emplace(variable.id(), variable).second) fresh.push_back(variable);
  }
  if (!fresh.empty()) build(fresh);
}

std::vector<Output> BaseOptimizer::apply_gradients(Graph& graph,
                                                   const std::vector<std::pair<Variable, Output>>& grads_and_vars) {
  std::vector<Variable> listed;
  for (const auto& [variable, grad] : grads_and_vars) {
    if (variable.defined() && grad.valid() && grad.graph != &graph) {
      throw ValueError(name_ + ": the gradient of '" + variable.path() + "' belongs to another graph");
    }
    listed.push_back(variable);
  }
  build_variables(listed);

  Output lr = graph.variable(learning_rate_);
  Output iterations = graph.variable(iterations_);
  NameScope scope(graph, name_);
  std::vector<Variable> variables;
  std::vector<Output> grads;
  std::string missing;
  for (const auto& [variable, grad] : grads_and_vars) {
    if (!grad.valid()) {
      missing += (missing.empty() ? "'" : ", '") + variable.path() + "'";
      continue;
    }
    if (!grad.shape().is_compatible_with(variable.shape())) {
      throw ShapeError(name_ + ": gradient of shape " + grad.shape().to_string() + " for variable '" +
                       variable.path() + "' of shape " + variable.shape().to_string());
    }
    variables.push_back(variable);
    grads.push_back(ops::cast(grad, DType::float32));
  }
  if (!missing.empty()) {
    std::cerr << "Warning: gradients do not exist for variables [" << missing
              << "] when minimizing the loss; " << name_ << " leaves them unchanged.\n";
  }
  grads = clip_gradients(grads);
  std::vector<Output> updates;
  if (common_.weight_decay.has_value()) {
    // Decoupled decay, w −= w·wd·lr, written before the updates so they start from it.
    const float wd = static_cast<float>(*common_.weight_decay);
    for (const auto& variable : variables) {
      Output w = graph.variable(variable);
      updates.push_back(ops::assign(w, ops::sub(w, ops::mul(ops::mul(w, wd), lr))));
    }
  }
  first_of_step_ = variables.empty() ? Variable() : variables.front();
  for (std::size_t i = 0; i < variables.size(); ++i) {
    for (const Output& u : update_step_nodes(graph, variables[i], grads[i], lr, iterations)) updates.push_back(u);
  }
  // Created last, so it runs after every variable update of the step.
  updates.push_back(ops::assign_add(iterations, ops::cast(ops::constant(graph, 1.f), DType::int64)));
  return updates;
}

Output BaseOptimizer::decayed_value(Graph& graph, const Variable& variable, Output lr) const {
  Output w = graph.variable(variable);
  if (!common_.weight_decay.has_value()) return w;
  return ops::sub(w, ops::mul(ops::mul(w, static_cast<float>(*common_.weight_decay)), lr));
}

void BaseOptimizer::update_learning_rate() {
  if (!schedule_.defined()) return;
  const auto step = static_cast<std::int64_t>(iterations_.scalar());
  learning_rate_.assign_scalar(schedule_(step));
}

std::vector<Variable> BaseOptimizer::variables() const {
  std::vector<Variable> all{iterations_, learning_rate_};
  all.insert(all.end(), slots_.begin(), slots_.end());
  return all;
}

void BaseOptimizer::add_optimizer_variables(const std::vector<Variable>& variables,
                                            const std::vector<std::string>& names, float initial_value) {
  for (const auto& variable : variables) {
    for (const auto& slot_name : names) {
      Variable slot(name_ + "/" + slot_prefix(variable) + "_" + slot_name,
                    Tensor::filled(variable.shape(), initial_value), false);
      slots_.push_back(slot);
      slot_variables_.push_back({variable, slot_name, slot});
      slot_index_[{variable.id(), slot_name}] = slot;
    }
  }
}

const Variable& BaseOptimizer::slot(const Variable& variable, const std::string& slot_name) const {
  auto it = slot_index_.find({variable.id(), slot_name});
  if (it == slot_index_.end()) {
    throw ValueError(name_ + ": no '" + slot_name + "' slot was built for variable '" + variable.path() + "'");
  }
  return it->second;
}

}  // namespace strata::optimizers
