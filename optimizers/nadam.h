// Nadam (Adam with Nesterov momentum), as Keras 3's keras.optimizers.Nadam: the momentum
// schedule u_t = β1·(1 − 0.5·0.96^t) and its running product (an optimizer variable).
#pragma once

#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct NadamOptions {
  LearningRate learning_rate = 0.001;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  // Shared by every Keras 3 optimizer: decoupled weight decay (w −= w·wd·lr before the
  // update) and gradient clipping (at most one of the three).
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";  // empty: Keras's auto name ("nadam", "nadam_1", ...)
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("beta_1", beta_1);
    f("beta_2", beta_2);
    f("epsilon", epsilon);
  }
};

class Nadam : public Optimizer {
 public:
  explicit Nadam(NadamOptions options = {});
  const NadamOptions& options() const;
};

}  // namespace strata::optimizers
