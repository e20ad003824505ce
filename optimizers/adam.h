// Adam (and AMSGrad), as Keras 3's keras.optimizers.Adam: the "epsilon-hat" form.
#pragma once

#include <optional>
#include <string>

#include "optimizers/optimizer.h"
#include "optimizers/schedules.h"

namespace strata::optimizers {

// Fields in the order of Keras's signature.
struct AdamOptions {
  LearningRate learning_rate = 0.001;  // a number or a schedule (optimizers/schedules.h)
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
  // Shared by every Keras 3 optimizer: decoupled weight decay (w −= w·wd·lr before the
  // update) and gradient clipping (at most one of the three).
  std::optional<double> weight_decay;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";  // empty: Keras's auto name ("adam", "adam_1", ...)
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("beta_1", beta_1);
    f("beta_2", beta_2);
    f("epsilon", epsilon);
    f("amsgrad", amsgrad);
  }
};

class Adam : public Optimizer {
 public:
  explicit Adam(AdamOptions options = {});
  const AdamOptions& options() const;
};

// AdamW: Adam with decoupled weight decay on by default (Keras 3's AdamW, weight_decay
// 0.004; auto name "adam_w", as Keras names it).
struct AdamWOptions {
  LearningRate learning_rate = 0.001;
  double weight_decay = 0.004;
  double beta_1 = 0.9;
  double beta_2 = 0.999;
  double epsilon = 1e-7;
  bool amsgrad = false;
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  std::string name = "";
  // Keras's config keys, in get_config's order (saving and loading walk these).
  void fields(ConfigFields& f) {
    common_fields(*this, f);
    f("beta_1", beta_1);
    f("beta_2", beta_2);
    f("epsilon", epsilon);
    f("amsgrad", amsgrad);
  }
};

class AdamW : public Optimizer {
 public:
  explicit AdamW(AdamWOptions options = {});
};

}  // namespace strata::optimizers
