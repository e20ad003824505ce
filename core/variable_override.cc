#include "core/variable_override.h"

#include <map>
#include <mutex>
#include <utility>

#include "core/error.h"

namespace strata {

namespace {

// Few and short-lived (a wrapper's call), so one table for all graphs; graphs may be
// built on several threads at once.
std::mutex g_mutex;
std::map<std::pair<const Graph*, const void*>, Output>& overrides() {
  static std::map<std::pair<const Graph*, const void*>, Output> table;
  return table;
}

}  // namespace

VariableOverride::VariableOverride(Graph& graph, const Variable& variable, Output value)
    : graph_(graph), variable_(variable) {
  if (!value.valid() || value.graph != &graph) {
    throw ValueError("override of '" + variable.path() + "': no value in this graph");
  }
  if (value.shape() != variable.shape() || value.dtype() != variable.dtype()) {
    throw ShapeError("override of '" + variable.path() + "' " + variable.shape().to_string() +
                     ": the value has shape " + value.shape().to_string());
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  if (!overrides().emplace(std::pair{&graph_, variable.id()}, value).second) {
    throw ValueError("override of '" + variable.path() + "': one is already set");
  }
}

VariableOverride::~VariableOverride() {
  std::lock_guard<std::mutex> lock(g_mutex);
  overrides().erase(std::pair{&graph_, variable_.id()});
}

Output variable_override(const Graph& graph, const Variable& variable) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto it = overrides().find(std::pair{&graph, variable.id()});
  return it == overrides().end() ? Output{} : it->second;
}

}  // namespace strata
