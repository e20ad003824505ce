// Fused optimizer updates (see optimizer_update_ops.h). Inputs are laid out as
// (variable, slots..., grad, lr[, iterations]); which slots are present follows from the
// attributes, so a node carries everything its kernel needs.
#include "core/ops/optimizer_update_ops.h"

#include "core/op_registry.h"
#include "core/ops/shape_util.h"

namespace strata::ops {

namespace {

// Number of slot variables between the variable and the gradient.
int slot_count(const std::string& op, const Attrs& a) {
  if (op == "apply_sgd") return a.get<double>("momentum") != 0.0 ? 1 : 0;
  if (op == "apply_adam") return a.get<bool>("amsgrad") ? 3 : 2;
  if (op == "apply_rmsprop") return 1 + (a.get<double>("momentum") > 0.0 ? 1 : 0) + (a.get<bool>("centered") ? 1 : 0);
  return 1;  // apply_adagrad
}

std::vector<TensorSpec> infer_apply(const InferContext& ctx) {
  const int slots = slot_count(ctx.op, ctx.attrs);
  const bool counted = ctx.op == "apply_adam";
  expect_inputs(ctx, static_cast<std::size_t>(1 + slots + 2 + (counted ? 1 : 0)));
  const TensorSpec& var = ctx.inputs[0];
  for (int i = 0; i <= slots + 1; ++i) {
    const TensorSpec& s = ctx.inputs[static_cast<std::size_t>(i)];
    const char* what = i == 0 ? "variable" : (i == slots + 1 ? "gradient" : "slot");
    if (s.dtype != DType::float32) throw ValueError(ctx.op + ": the " + what + " must be float32");
    if (!s.shape.is_compatible_with(var.shape)) {
      throw ShapeError(ctx.op + ": " + what + " of shape " + s.shape.to_string() + " does not match variable of shape " +
                       var.shape.to_string());
    }
  }
  const TensorSpec& lr = ctx.inputs[static_cast<std::size_t>(slots + 2)];
  if (lr.dtype != DType::float32 || lr.shape.rank() != 0) {
    throw ValueError(ctx.op + ": learning_rate must be a float32 scalar, got " + lr.shape.to_string());
  }
  if (counted) {
    const TensorSpec& it = ctx.inputs.back();
    if (it.dtype == DType::float32 || it.shape.rank() != 0) {
      throw ValueError(ctx.op + ": iterations must be an integer scalar");
    }
  }
  return {};
}

Output add_apply(const char* op, std::vector<Output> inputs, Attrs attrs) {
  Output variable = inputs.front();
  if (!variable.valid()) throw ValueError(std::string(op) + ": undefined variable");
  Graph& graph = *variable.graph;
  for (int i = 0; i < 1 + slot_count(op, attrs); ++i) {
    const Output& in = inputs[static_cast<std::size_t>(i)];
    if (!in.valid() || graph.node(in.node).op != "variable") {
      throw ValueError(std::string(op) + ": input " + std::to_string(i) + " must be a variable node");
    }
  }
  const Node& target = graph.node(variable.node);
  graph.add_node(op, inputs, std::move(attrs), std::string(op) + "_" + target.name);
  return {&graph, graph.num_nodes() - 1, 0};
}

}  // namespace

void register_optimizer_update_ops(OpRegistry& r) {
  for (const char* name : {"apply_sgd", "apply_adam", "apply_rmsprop", "apply_adagrad"}) {
    r.add({.name = name, .infer = infer_apply, .gradient = nullptr, .differentiable = false, .stateful = true});
  }
}

Output apply_sgd(Output variable, Output m, Output grad, Output lr, const SgdAttrs& attrs) {
  std::vector<Output> in{variable};
  if (attrs.momentum != 0.0) in.push_back(m);
  in.insert(in.end(), {grad, lr});
  return add_apply("apply_sgd", in, Attrs{{"momentum", attrs.momentum}, {"nesterov", attrs.nesterov}});
}

Output apply_adam(Output variable, Output m, Output v, Output v_hat, Output grad, Output lr, Output iterations,
                  const AdamAttrs& attrs) {
  std::vector<Output> in{variable, m, v};
  if (attrs.amsgrad) in.push_back(v_hat);
  in.insert(in.end(), {grad, lr, iterations});
  return add_apply("apply_adam", in,
                   Attrs{{"beta_1", attrs.beta_1}, {"beta_2", attrs.beta_2}, {"epsilon", attrs.epsilon},
                         {"amsgrad", attrs.amsgrad}});
}

Output apply_rmsprop(Output variable, Output velocity, Output momentum_slot, Output average_gradient, Output grad,
                     Output lr, const RmspropAttrs& attrs) {
  std::vector<Output> in{variable, velocity};
  if (attrs.momentum > 0.0) in.push_back(momentum_slot);
  if (attrs.centered) in.push_back(average_gradient);
  in.insert(in.end(), {grad, lr});
  return add_apply("apply_rmsprop", in,
                   Attrs{{"rho", attrs.rho}, {"momentum", attrs.momentum}, {"epsilon", attrs.epsilon},
                         {"centered", attrs.centered}});
}

Output apply_adagrad(Output variable, Output accumulator, Output grad, Output lr, double epsilon) {
  return add_apply("apply_adagrad", {variable, accumulator, grad, lr}, Attrs{{"epsilon", epsilon}});
}

}  // namespace strata::ops
