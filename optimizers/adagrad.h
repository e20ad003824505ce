// Adagrad, as Keras 3's keras.optimizers.Adagrad.
#pragma once

#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct AdagradOptions {
  LearningRate learning_rate = 0.001;  // a number or a schedule (optimizers/schedules.h)
  double initial_accumulator_value = 0.1;
  double epsilon = 1e-7;
  // Shared by every Keras 3 optimizer: decoupled weight decay (w −= w·wd·lr before the
  // update) and gradient clipping (at most one of the three).
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";  // empty: Keras's auto name ("adagrad", "adagrad_1", ...)
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("initial_accumulator_value", initial_accumulator_value);
    f("epsilon", epsilon);
  }
};

class Adagrad : public Optimizer {
 public:
  explicit Adagrad(AdagradOptions options = {});
  const AdagradOptions& options() const;
};

}  // namespace strata::optimizers
