// RMSprop, as Keras 3's keras.optimizers.RMSprop: epsilon inside the square root,
// optional momentum and centering.
#pragma once

#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct RMSpropOptions {
  LearningRate learning_rate = 0.001;  // a number or a schedule (optimizers/schedules.h)
  double rho = 0.9;
  double momentum = 0.0;
  double epsilon = 1e-7;
  bool centered = false;
  // Shared by every Keras 3 optimizer: decoupled weight decay (w −= w·wd·lr before the
  // update) and gradient clipping (at most one of the three).
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";  // empty: Keras's auto name ("rm_sprop", "rm_sprop_1", ...)
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("rho", rho);
    f("momentum", momentum);
    f("epsilon", epsilon);
    f("centered", centered);
  }
};

class RMSprop : public Optimizer {
 public:
  explicit RMSprop(RMSpropOptions options = {});
  const RMSpropOptions& options() const;
};

}  // namespace strata::optimizers
