// Fused optimizer updates: one stateful node per (optimizer, variable) that applies a
// Keras 3 update rule in place, in float32, in the same operation order as Keras's
// update_step. Like assign, they run after every read of the step, in creation order.
// Each returns the update node (it has no outputs: it is a Program target).
#pragma once

#include "core/graph.h"

namespace strata::ops {

struct SgdAttrs {
  double momentum = 0.0;
  bool nesterov = false;
};
// m = momentum·m − lr·g; w += m (nesterov: w += momentum·m − lr·g); without momentum
// (`m` invalid): w −= lr·g.
Output apply_sgd(Output variable, Output m, Output grad, Output lr, const SgdAttrs& attrs);

struct AdamAttrs {
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
};
// t = iterations + 1; α = lr·sqrt(1 − β2^t)/(1 − β1^t); m += (g − m)(1 − β1);
// v += (g² − v)(1 − β2); [v̂ = max(v̂, v)]; w −= α·m/(sqrt(v or v̂) + ε).
// `v_hat` is required iff amsgrad. `iterations` is the optimizer's int64 counter.
Output apply_adam(Output variable, Output m, Output v, Output v_hat, Output grad, Output lr, Output iterations,
                  const AdamAttrs& attrs);

struct RmspropAttrs {
  double rho = 0.9;
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
};
// v = ρv + (1−ρ)g²; [ḡ = ρḡ + (1−ρ)g]; inc = lr·g/sqrt(v [− ḡ²] + ε);
// momentum > 0: mom = momentum·mom + inc, w −= mom; else w −= inc.
// `momentum_slot` is required iff momentum > 0, `average_gradient` iff centered.
Output apply_rmsprop(Output variable, Output velocity, Output momentum_slot, Output average_gradient, Output grad,
                     Output lr, const RmspropAttrs& attrs);

// acc += g²; w −= lr·g / sqrt(acc + ε).
Output apply_adagrad(Output variable, Output accumulator, Output grad, Output lr, double epsilon);

}  // namespace strata::ops
