// Adadelta, as Keras 3's keras.optimizers.Adadelta: a = ρa + (1−ρ)g²;
// Δ = −sqrt(d + ε)·g / sqrt(a + ε); d = ρd + (1−ρ)Δ²; w += lr·Δ.
#pragma once

#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct AdadeltaOptions {
  LearningRate learning_rate = 0.001;
  double rho = 0.95;
  double epsilon = 1e-7;
  // Shared by every Keras 3 optimizer: decoupled weight decay (w −= w·wd·lr before the
  // update) and gradient clipping (at most one of the three).
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";  // empty: Keras's auto name ("adadelta", "adadelta_1", ...)
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("rho", rho);
    f("epsilon", epsilon);
  }
};

class Adadelta : public Optimizer {
 public:
  explicit Adadelta(AdadeltaOptions options = {});
  const AdadeltaOptions& options() const;
};

}  // namespace strata::optimizers
