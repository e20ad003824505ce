#include "losses/regression_metrics.h"

#include "losses/mean_metric_wrapper.h"
#include "losses/regression_losses.h"

namespace strata::metrics {

MeanSquaredError::MeanSquaredError(MeanSquaredErrorOptions options)
    : Metric(std::make_shared<MeanMetricWrapper>(losses::mean_squared_error, options.name)) {}

MeanAbsoluteError::MeanAbsoluteError(MeanAbsoluteErrorOptions options)
    : Metric(std::make_shared<MeanMetricWrapper>(losses::mean_absolute_error, options.name)) {}

}  // namespace strata::metrics
