// RMSprop, as Keras 3's keras.optimizers.RMSprop: epsilon inside the square root,
// optional momentum and centering.
#pragma once

#include <string>

#include "optimizers/optimizer.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct RMSpropOptions {
  double learning_rate = 0.001;
  double rho = 0.9;
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
  std::string name = "";  // empty: Keras's auto name ("rm_sprop", "rm_sprop_1", ...)
};

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(RMSpropOptions options = {});
  const RMSpropOptions& options() const;
};

}  // namespace strata::optimizers
