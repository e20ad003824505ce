// Symbolic reverse-mode differentiation: gradients are new nodes in the same graph, so
// they can be differentiated again (second-order) and are compiled like any other node.
#pragma once

#include <vector>

#include "core/graph.h"

namespace strata {

// d(sum(y * dy))/dx for each x; dy defaults to ones. An x that y does not depend on
// gets an invalid Output (Keras/TF's None).
std::vector<Output> gradients(Output y, const std::vector<Output>& xs, Output dy = {});

}  // namespace strata
