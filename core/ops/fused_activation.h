// Dense's and conv2d's one fused activation: the node's "activation" attribute, "relu",
// or for conv2d "relu6" and "silu" (which only the inference rewrite sets for Programs on
// the CPU, core/inference_rewrite.h; shape inference refuses any other). Kernels of both devices and the gradients read it
// here: one map lookup, no string copied, on every run.
#pragma once

#include <string>

#include "core/graph.h"

namespace strata::ops {

enum class FusedActivation { none, relu, relu6, silu };

inline FusedActivation fused_activation(const Node& node) {
  const std::string* activation = node.attrs.find<std::string>("activation");
  if (!activation) return FusedActivation::none;
  if (*activation == "relu") return FusedActivation::relu;
  if (*activation == "relu6") return FusedActivation::relu6;
  if (*activation == "silu") return FusedActivation::silu;
  return FusedActivation::none;
}

inline bool fuses_relu(const Node& node) { return fused_activation(node) == FusedActivation::relu; }

}  // namespace strata::ops
