// VariableOverride: for a scope, a graph's reads of one variable (Graph::variable) give a
// computed value instead of the variable's read node. A wrapper uses it to make its inner
// layer read a weight it computes: SpectralNormalization's normalized kernel. The value
// must be computed first (from the real read node), has the variable's shape and dtype,
// and one override at a time is set per graph and variable.
#pragma once

#include "core/graph.h"

namespace strata {

class VariableOverride {
 public:
  VariableOverride(Graph& graph, const Variable& variable, Output value);
  ~VariableOverride();
  VariableOverride(const VariableOverride&) = delete;
  VariableOverride& operator=(const VariableOverride&) = delete;

 private:
  Graph& graph_;
  Variable variable_;
};

// The override set for `variable` in `graph`, or an invalid Output (Graph::variable asks).
Output variable_override(const Graph& graph, const Variable& variable);

}  // namespace strata
