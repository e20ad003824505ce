// SGD with optional (Nesterov) momentum, as Keras 3's keras.optimizers.SGD.
#pragma once

#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct SGDOptions {
  LearningRate learning_rate = 0.01;  // a number or a schedule (optimizers/schedules.h)
  double momentum = 0.0;
  bool nesterov = false;
  // Shared by every Keras 3 optimizer: decoupled weight decay (w −= w·wd·lr before the
  // update) and gradient clipping (at most one of the three).
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";  // empty: Keras's auto name ("sgd", "sgd_1", ...)
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("momentum", momentum);
    f("nesterov", nesterov);
  }
};

class SGD : public Optimizer {
 public:
  explicit SGD(SGDOptions options = {});
  const SGDOptions& options() const;
};

}  // namespace strata::optimizers
