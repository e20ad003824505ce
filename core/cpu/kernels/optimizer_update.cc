// CPU kernels of the fused optimizer updates (core/ops/optimizer_update_ops.h): each
// updates its variable and slots, inputs (variable, slots..., grad, lr[, iterations]), in place.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "core/cpu/kernels/register.h"
#include "core/cpu/parallel.h"
#include "core/op_registry.h"

namespace strata::cpu {

namespace {

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

// Adam's update of elements [first, last), its arrays apart (a variable, its two slots and
// its gradient) and its constants in registers: the loop vectorizes.
void adam_range(std::int64_t first, std::int64_t last, float* __restrict w, float* __restrict m,
                float* __restrict v, const float* __restrict g, float one_minus_b1, float one_minus_b2,
                float alpha, float eps) {
  for (std::int64_t i = first; i < last; ++i) {
    const float gi = g[i];
    const float mi = m[i] + (gi - m[i]) * one_minus_b1;
    const float vi = v[i] + (gi * gi - v[i]) * one_minus_b2;
    m[i] = mi;
    v[i] = vi;
    w[i] -= (mi * alpha) / (std::sqrt(vi) + eps);
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
  // Two loops, so that the common one has no branch and vectorizes (this file is compiled
  // with -fno-math-errno: std::sqrt is the instruction; adam_range).
  if (vhat) {
    for_elements(ctx.input(0).size(), [&](std::int64_t i) {
      m[i] += (g[i] - m[i]) * one_minus_b1;
      v[i] += (g[i] * g[i] - v[i]) * one_minus_b2;
      vhat[i] = std::max(vhat[i], v[i]);
      w[i] -= (m[i] * alpha) / (std::sqrt(vhat[i]) + eps);
    });
    return;
  }
  cpu::parallel_for(ctx.input(0).size(), [=](std::int64_t first, std::int64_t last) {
    adam_range(first, last, w, m, v, g, one_minus_b1, one_minus_b2, alpha, eps);
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

}  // namespace

void register_optimizer_update_kernels(OpRegistry& r) {
  r.add_kernel("apply_sgd", DeviceType::cpu, {.run = sgd_kernel});
  r.add_kernel("apply_adam", DeviceType::cpu, {.run = adam_kernel});
  r.add_kernel("apply_rmsprop", DeviceType::cpu, {.run = rmsprop_kernel});
  r.add_kernel("apply_adagrad", DeviceType::cpu, {.run = adagrad_kernel});
}

}  // namespace strata::cpu
