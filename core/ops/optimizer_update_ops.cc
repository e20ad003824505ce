// Fused optimizer updates (see optimizer_update_ops.h). Inputs are laid out as
// (variable, slots..., grad, lr[, iterations]); which slots are present follows from the
// attributes, so a node carries everything its kernel needs.
#include "core/ops/optimizer_update_ops.h"

#include <cmath>

#include "core/cpu/parallel.h"
#include "core/cuda/update_kernels.h"
#include "core/op_registry.h"
#include "core/ops/cuda_kernel.h"
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

// Mutable float data of input i (variables and slots are updated in place).
float* mut(KernelContext& ctx, int i) { return const_cast<Tensor&>(ctx.input(i)).data<float>(); }

std::int64_t read_iterations(const Tensor& t) {
  return t.dtype() == DType::int64 ? *t.data<std::int64_t>() : *t.data<std::int32_t>();
}

void check_sizes(KernelContext& ctx, int n) {
  for (int i = 1; i < n; ++i) {
    if (ctx.input(i).size() != ctx.input(0).size()) {
      throw ShapeError(ctx.node.name + ": input " + std::to_string(i) + " of shape " +
                       ctx.input(i).shape().to_string() + " does not match variable of shape " +
                       ctx.input(0).shape().to_string());
    }
  }
}

template <typename Fn>
void for_elements(std::int64_t n, Fn fn) {
  cpu::parallel_for(n, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) fn(i);
  });
}

void sgd_kernel(KernelContext& ctx) {
  const Attrs& a = ctx.node.attrs;
  const bool has_m = a.get<double>("momentum") != 0.0;
  const int gi = has_m ? 2 : 1;
  check_sizes(ctx, gi + 1);
  float* w = mut(ctx, 0);
  const float* g = ctx.input(gi).data<float>();
  const float lr = *ctx.input(gi + 1).data<float>();
  const std::int64_t n = ctx.input(0).size();
  if (!has_m) {
    for_elements(n, [&](std::int64_t i) { w[i] -= g[i] * lr; });
    return;
  }
  float* m = mut(ctx, 1);
  const float mu = static_cast<float>(a.get<double>("momentum"));
  if (a.get<bool>("nesterov")) {
    for_elements(n, [&](std::int64_t i) {
      m[i] = m[i] * mu - g[i] * lr;
      w[i] += m[i] * mu - g[i] * lr;
    });
  } else {
    for_elements(n, [&](std::int64_t i) {
      m[i] = m[i] * mu - g[i] * lr;
      w[i] += m[i];
    });
  }
}

void adam_kernel(KernelContext& ctx) {
  const Attrs& a = ctx.node.attrs;
  const bool amsgrad = a.get<bool>("amsgrad");
  const int gi = amsgrad ? 4 : 3;
  check_sizes(ctx, gi + 1);
  float* w = mut(ctx, 0);
  float* m = mut(ctx, 1);
  float* v = mut(ctx, 2);
  float* vhat = amsgrad ? mut(ctx, 3) : nullptr;
  const float* g = ctx.input(gi).data<float>();
  const float lr = *ctx.input(gi + 1).data<float>();
  const float t = static_cast<float>(read_iterations(ctx.input(gi + 2)) + 1);
  const double beta_1 = a.get<double>("beta_1"), beta_2 = a.get<double>("beta_2");
  const float b1_power = std::pow(static_cast<float>(beta_1), t);
  const float b2_power = std::pow(static_cast<float>(beta_2), t);
  const float alpha = lr * std::sqrt(1.f - b2_power) / (1.f - b1_power);
  const float one_minus_b1 = static_cast<float>(1.0 - beta_1);
  const float one_minus_b2 = static_cast<float>(1.0 - beta_2);
  const float eps = static_cast<float>(a.get<double>("epsilon"));
  for_elements(ctx.input(0).size(), [&](std::int64_t i) {
    m[i] += (g[i] - m[i]) * one_minus_b1;
    v[i] += (g[i] * g[i] - v[i]) * one_minus_b2;
    float denom_v = v[i];
    if (vhat) {
      vhat[i] = std::max(vhat[i], v[i]);
      denom_v = vhat[i];
    }
    w[i] -= (m[i] * alpha) / (std::sqrt(denom_v) + eps);
  });
}

void rmsprop_kernel(KernelContext& ctx) {
  const Attrs& a = ctx.node.attrs;
  const double momentum = a.get<double>("momentum");
  const bool has_mom = momentum > 0.0, centered = a.get<bool>("centered");
  const int gi = 2 + (has_mom ? 1 : 0) + (centered ? 1 : 0);
  check_sizes(ctx, gi + 1);
  float* w = mut(ctx, 0);
  float* vel = mut(ctx, 1);
  float* mom = has_mom ? mut(ctx, 2) : nullptr;
  float* avg = centered ? mut(ctx, has_mom ? 3 : 2) : nullptr;
  const float* g = ctx.input(gi).data<float>();
  const float lr = *ctx.input(gi + 1).data<float>();
  const double rho_d = a.get<double>("rho");
  const float rho = static_cast<float>(rho_d), one_minus_rho = static_cast<float>(1.0 - rho_d);
  const float mu = static_cast<float>(momentum);
  const float eps = static_cast<float>(a.get<double>("epsilon"));
  for_elements(ctx.input(0).size(), [&](std::int64_t i) {
    vel[i] = rho * vel[i] + one_minus_rho * (g[i] * g[i]);
    float denom;
    if (avg) {
      avg[i] = rho * avg[i] + one_minus_rho * g[i];
      denom = vel[i] - avg[i] * avg[i] + eps;
    } else {
      denom = vel[i] + eps;
    }
    const float inc = (lr * g[i]) / std::sqrt(denom);
    if (mom) {
      mom[i] = mu * mom[i] + inc;
      w[i] -= mom[i];
    } else {
      w[i] -= inc;
    }
  });
}

void adagrad_kernel(KernelContext& ctx) {
  check_sizes(ctx, 3);
  float* w = mut(ctx, 0);
  float* acc = mut(ctx, 1);
  const float* g = ctx.input(2).data<float>();
  const float lr = *ctx.input(3).data<float>();
  const float eps = static_cast<float>(ctx.node.attrs.get<double>("epsilon"));
  for_elements(ctx.input(0).size(), [&](std::int64_t i) {
    acc[i] += g[i] * g[i];
    w[i] -= (lr * g[i]) / std::sqrt(acc[i] + eps);
  });
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
  struct Kernels {
    const char* name;
    KernelFn cpu, cuda;
  };
  for (const Kernels& k : {Kernels{"apply_sgd", sgd_kernel, STRATA_CUDA_KERNEL(cuda::apply_sgd)},
                           Kernels{"apply_adam", adam_kernel, STRATA_CUDA_KERNEL(cuda::apply_adam)},
                           Kernels{"apply_rmsprop", rmsprop_kernel, STRATA_CUDA_KERNEL(cuda::apply_rmsprop)},
                           Kernels{"apply_adagrad", adagrad_kernel, STRATA_CUDA_KERNEL(cuda::apply_adagrad)}}) {
    r.add({.name = k.name, .infer = infer_apply, .cpu_kernel = k.cpu, .gradient = nullptr, .differentiable = false,
           .stateful = true, .cuda_kernel = k.cuda});
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
