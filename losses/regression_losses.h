// Regression losses: MeanSquaredError ("mse") and MeanAbsoluteError ("mae"), as
// Keras 3 defines them: the mean over the last axis of (y_true − y_pred)² or |…|.
#pragma once

#include <string>

#include "losses/loss.h"

namespace strata::losses {

// Keras's loss functions: per-sample values (mean over the last axis).
Output mean_squared_error(Output y_true, Output y_pred);
Output mean_absolute_error(Output y_true, Output y_pred);

// Fields in the order of Keras's signature.
struct MeanSquaredErrorOptions {
  std::string reduction = "sum_over_batch_size";
  std::string name = "mean_squared_error";
};

class MeanSquaredError : public Loss {
 public:
  explicit MeanSquaredError(MeanSquaredErrorOptions options = {});
};

struct MeanAbsoluteErrorOptions {
  std::string reduction = "sum_over_batch_size";
  std::string name = "mean_absolute_error";
};

class MeanAbsoluteError : public Loss {
 public:
  explicit MeanAbsoluteError(MeanAbsoluteErrorOptions options = {});
};

}  // namespace strata::losses
