#include "core/autodiff.h"

#include <map>
#include <string>

#include "core/op_registry.h"
#include "core/ops.h"

namespace strata {

namespace {

Output sum_of(const std::vector<Output>& parts) {
  Output total = parts.front();
  for (std::size_t i = 1; i < parts.size(); ++i) total = ops::add(total, parts[i]);
  return total;
}

}  // namespace

std::vector<Output> gradients(Output y, const std::vector<Variable>& variables, Output dy) {
  if (!y.valid()) throw ValueError("gradients: y is undefined");
  std::vector<Output> nodes;
  nodes.reserve(variables.size());
  for (std::size_t i = 0; i < variables.size(); ++i) {
    if (!variables[i].defined()) {
      throw ValueError("gradients: variable " + std::to_string(i) + " of " + std::to_string(variables.size()) +
                       " in the list is undefined");
    }
    nodes.push_back(y.graph->variable(variables[i]));
  }
  return gradients(y, nodes, dy);
}

std::vector<Output> gradients(Output y, const std::vector<Output>& xs, Output dy) {
  if (!y.valid()) throw ValueError("gradients: y is undefined");
  Graph& graph = *y.graph;
  const int last = y.node;

  // Nodes that depend on some x, restricted to ancestors of y: only they get gradients.
  std::vector<char> depends(static_cast<std::size_t>(last + 1), 0);
  int first = last + 1;
  for (const auto& x : xs) {
    if (x.graph != &graph) throw ValueError("gradients: x and y belong to different graphs");
    if (x.node <= last) {
      depends[x.node] = 1;
      first = std::min(first, x.node);
    }
  }
  for (int id = first; id <= last; ++id) {
    for (const auto& in : graph.node(id).inputs) {
      if (in.node >= first && depends[in.node]) depends[id] = 1;
    }
  }
  std::vector<char> ancestor(static_cast<std::size_t>(last + 1), 0);
  ancestor[last] = 1;
  for (int id = last; id >= first; --id) {
    if (!ancestor[id]) continue;
    for (const auto& in : graph.node(id).inputs) ancestor[in.node] = 1;
  }

  std::map<std::pair<int, int>, std::vector<Output>> contributions;
  contributions[{y.node, y.index}].push_back(dy.valid() ? dy : ops::ones_like(y));

  for (int id = last; id >= first; --id) {
    if (!depends[id] || !ancestor[id]) continue;
    const Node& node = graph.node(id);
    if (!node.def->differentiable || node.inputs.empty()) continue;
    std::vector<Output> out_grads;
    bool any = false;
    for (int o = 0; o < static_cast<int>(node.outputs.size()); ++o) {
      auto it = contributions.find({id, o});
      if (it != contributions.end()) {
        out_grads.push_back(sum_of(it->second));
        any = true;
      } else {
        out_grads.push_back(ops::zeros_like(Output{&graph, id, o}));
      }
    }
    if (!any) continue;
    std::vector<Output> in_grads;
    {
      // An op of an emulated bfloat16 / float16 layer has its gradient computed in that
      // dtype, op by op, as TensorFlow's (core/graph.h: Node::precision).
      PrecisionScope in_its_precision(graph, node.precision);
      in_grads = node.def->gradient(node, out_grads);
    }
    if (in_grads.size() != node.inputs.size()) {
      throw Error("gradient of op '" + node.op + "' returned " + std::to_string(in_grads.size()) +
                  " gradients for " + std::to_string(node.inputs.size()) + " inputs");
    }
    for (std::size_t i = 0; i < in_grads.size(); ++i) {
      const Output& in = node.inputs[i];
      if (!in_grads[i].valid() || !depends[in.node]) continue;
      if (in_grads[i].shape().rank() != in.shape().rank()) {
        throw Error("gradient of op '" + node.op + "' for input " + std::to_string(i) + " has shape " +
                    in_grads[i].shape().to_string() + ", input has " + in.shape().to_string());
      }
      contributions[{in.node, in.index}].push_back(in_grads[i]);
    }
  }

  std::vector<Output> result;
  for (const auto& x : xs) {
    auto it = contributions.find({x.node, x.index});
    result.push_back(it == contributions.end() ? Output{} : sum_of(it->second));
  }
  return result;
}

}  // namespace strata
