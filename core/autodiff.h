// Symbolic reverse-mode differentiation: gradients are new nodes in the same graph, so
// they can be differentiated again (second-order) and are compiled like any other node.
#pragma once

#include <initializer_list>
#include <vector>

#include "core/graph.h"
#include "core/variable.h"

namespace strata {

// d(sum(y * dy))/dx for each x; dy defaults to ones. An x that y does not depend on
// gets an invalid Output (Keras/TF's None).
std::vector<Output> gradients(Output y, const std::vector<Output>& xs, Output dy = {});

// Keras's tape.gradient(loss, model.trainable_weights): the gradient of y with respect to
// each variable, through the variable's node in y's graph (the one a model called in that
// graph reads; one y does not depend on gets an invalid Output, Keras's None).
std::vector<Output> gradients(Output y, const std::vector<Variable>& variables, Output dy = {});
// A braced list of Outputs ({x1, x2}, or {}) picks the Outputs' overload.
inline std::vector<Output> gradients(Output y, std::initializer_list<Output> xs, Output dy = {}) {
  return gradients(y, std::vector<Output>(xs), dy);
}

}  // namespace strata
