// MeanMetricWrapper: Keras's streaming weighted mean of a per-sample function
// (accuracy, mse, ...). Per batch the graph computes two scalars, Σ w·value and Σ w
// (the sample count when unweighted), after Keras's reduce_to_samplewise_values; the
// host adds them up until reset(), so result() covers every batch since (one epoch).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "losses/metric.h"

namespace strata::metrics {

// Per-sample (or per-element) values of a metric for one batch.
using MetricFn = std::function<Output(Output y_true, Output y_pred)>;

// Keras's reduce_to_samplewise_values + Mean.update_state, as graph nodes: returns
// {total, count} for one batch. `sample_weight` may be invalid (unweighted).
std::vector<Output> weighted_mean_statistics(Output values, Output sample_weight);

class MeanMetricWrapper : public MetricImpl {
 public:
  MeanMetricWrapper(MetricFn fn, std::string metric_name);
  std::vector<Output> build(Output y_true, Output y_pred, Output sample_weight) override;
  void update(const std::vector<Tensor>& statistics) override;
  float result() const override;
  void reset() override;

 private:
  MetricFn fn_;
  double total_ = 0.0;
  double count_ = 0.0;
};

}  // namespace strata::metrics
