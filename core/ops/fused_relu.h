// Dense's and conv2d's one fused activation: the node's "activation" attribute is "relu"
// (shape inference refuses any other). Kernels of both devices and the gradients read it
// here: one map lookup, no string copied, on every run.
#pragma once

#include <string>

#include "core/graph.h"

namespace strata::ops {

inline bool fuses_relu(const Node& node) {
  const std::string* activation = node.attrs.find<std::string>("activation");
  return activation && *activation == "relu";
}

}  // namespace strata::ops
