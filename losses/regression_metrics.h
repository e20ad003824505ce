// Regression metrics: streaming MeanSquaredError and MeanAbsoluteError (Keras's
// MeanMetricWrapper over the loss functions of the same names).
#pragma once

#include <string>

#include "losses/metric.h"

namespace strata::metrics {

// Fields in the order of Keras's signature.
struct MeanSquaredErrorOptions {
  std::string name = "mean_squared_error";
};

class MeanSquaredError : public Metric {
 public:
  explicit MeanSquaredError(MeanSquaredErrorOptions options = {});
};

struct MeanAbsoluteErrorOptions {
  std::string name = "mean_absolute_error";
};

class MeanAbsoluteError : public Metric {
 public:
  explicit MeanAbsoluteError(MeanAbsoluteErrorOptions options = {});
};

}  // namespace strata::metrics
