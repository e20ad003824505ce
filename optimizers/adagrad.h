// Adagrad, as Keras 3's keras.optimizers.Adagrad.
#pragma once

#include <string>

#include "optimizers/optimizer.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct AdagradOptions {
  double learning_rate = 0.001;
  double initial_accumulator_value = 0.1;
  double epsilon = 1e-7;
  std::string name = "";  // empty: Keras's auto name ("adagrad", "adagrad_1", ...)
};

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(AdagradOptions options = {});
  const AdagradOptions& options() const;
};

}  // namespace strata::optimizers
