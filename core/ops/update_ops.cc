// Variable updates. They are stateful: the Program runs them after every other node of
// a step, in creation order, so every value the step computes from a variable sees it as
// it was before the step. An update that takes a variable itself as an input reads it
// as left by the updates created before it (optimizers create the step counter's
// increment last, so every update of a step reads the same count).
#include <cstring>

#include "core/op_registry.h"
#include "core/ops.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

std::vector<TensorSpec> infer_update(const InferContext& ctx) {
  expect_inputs(ctx, 2);
  if (ctx.inputs[0].dtype != ctx.inputs[1].dtype) {
    throw ValueError(ctx.op + ": value of dtype " + to_string(ctx.inputs[1].dtype) +
                     " does not match variable of dtype " + to_string(ctx.inputs[0].dtype));
  }
  if (ctx.inputs[0].shape != ctx.inputs[1].shape && ctx.inputs[1].shape.rank() != 0) {
    throw ShapeError(ctx.op + ": value of shape " + ctx.inputs[1].shape.to_string() +
                     " does not match variable of shape " + ctx.inputs[0].shape.to_string());
  }
  return {};
}

Output add_update(const char* op, Output variable, Output value) {
  const Node& target = variable.graph->node(variable.node);
  if (target.op != "variable") {
    throw ValueError(std::string(op) + " must write a variable, got '" + target.name + "' (" + target.op + ")");
  }
  variable.graph->add_node(op, {variable, value}, {}, std::string(op) + "_" + target.name);
  // The handle names the update node; it has no outputs, only a place in the step.
  return {variable.graph, variable.graph->num_nodes() - 1, 0};
}

}  // namespace

void register_update_ops(OpRegistry& r) {
  r.add({.name = "assign", .infer = infer_update, .differentiable = false, .stateful = true});
  r.add({.name = "assign_add", .infer = infer_update, .differentiable = false, .stateful = true});
}

Output assign(Output variable, Output value) { return add_update("assign", variable, value); }
Output assign_add(Output variable, Output delta) { return add_update("assign_add", variable, delta); }

}  // namespace strata::ops
