// LossScaleOptimizer: Keras 3's keras.optimizers.LossScaleOptimizer, the dynamic loss
// scaling that keeps float16's small gradients from underflowing. compile wraps a model's
// optimizer in one when the model's dtype policy is "mixed_float16" (CompileOptions::
// auto_scale_loss), as Keras's does. Each train step:
//  - differentiates loss · dynamic_scale instead of the loss (scale_loss);
//  - if every gradient is finite, applies gradient / dynamic_scale with the inner
//    optimizer, and doubles the scale after `dynamic_growth_steps` such steps in a row;
//  - otherwise skips the step (the inner optimizer's variables, iterations included, stay
//    as they were: its updates run under a RunIfScope, core/graph.h) and halves the scale.
// Its variables are Keras's, in Keras's order: its own iteration and learning_rate
// (unused, 0), step_counter and dynamic_scale, then the inner optimizer's; iterations()
// and learning_rate() are the inner optimizer's, as Keras's properties forward them.
#pragma once

#include <cstdint>
#include <string>

#include "optimizers/config_fields.h"
#include "optimizers/optimizer.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature (after inner_optimizer).
struct LossScaleOptimizerOptions {
  double initial_scale = 32768.0;  // 2^15
  std::int64_t dynamic_growth_steps = 2000;
  std::string name = "";  // empty: Keras's auto name ("loss_scale_optimizer", ...)
  // Keras's config keys besides "inner_optimizer" (io/optimizer_config.cc writes that one
  // after "name", where Keras's get_config has it).
  void fields(ConfigFields& f) {
    f("name", name);
    f("initial_scale", initial_scale);
    f("dynamic_growth_steps", dynamic_growth_steps);
  }
};

class LossScaleOptimizer : public Optimizer {
 public:
  // ValueError for an undefined or already wrapped inner optimizer, a scale that is not
  // positive and finite, or growth steps below 1.
  explicit LossScaleOptimizer(Optimizer inner_optimizer, LossScaleOptimizerOptions options = {});
  // The one compile wraps a mixed_float16 model's optimizer in (named as Keras's);
  // files record the inner optimizer as compile's, as Keras's do.
  static LossScaleOptimizer made_by_compile(Optimizer inner_optimizer);
  // The LossScaleOptimizer `optimizer` is; ValueError when it is not one.
  static LossScaleOptimizer from(const Optimizer& optimizer);

  const LossScaleOptimizerOptions& options() const;
  Optimizer inner_optimizer() const;
  float dynamic_scale() const;
  std::int64_t step_counter() const;
  bool is_made_by_compile() const;

 private:
  LossScaleOptimizer() = default;
};

bool is_loss_scale_optimizer(const Optimizer& optimizer);

}  // namespace strata::optimizers
