// AccumulatingMetric: the base of streaming metrics whose state is a few sums (confusion
// counts per threshold, per-class sums). Each batch the graph computes the batch's sums
// (small tensors); update() adds them, in double, to the running sums; result() computes
// the metric from the running sums; reset() zeroes them (fit does at every epoch).
#pragma once

#include <vector>

#include "core/variable.h"
#include "losses/metric.h"

namespace strata::metrics {

class AccumulatingMetric : public MetricImpl {
 public:
  std::vector<Output> build(Output y_true, Output y_pred, Output sample_weight) final;
  void update(const std::vector<Tensor>& statistics) final;
  float result() const final;
  void reset() final;

 protected:
  // The batch's sums, as graph nodes (any shapes; fixed per metric).
  virtual std::vector<Output> statistics(Output y_true, Output y_pred, Output sample_weight) = 0;
  // The metric from the running sums (same order and sizes as statistics()).
  virtual double compute(const std::vector<std::vector<double>>& sums) const = 0;

  // A constant vector as a graph input (a non-trainable variable the metric owns).
  Output constant_vector(Graph& graph, const std::vector<float>& values);
  // sample_weight (B,) broadcast to like's shape; ones when invalid.
  static Output weights_like(Output sample_weight, Output like);

 private:
  std::vector<std::vector<double>> sums_;
  std::vector<Variable> constants_;
};

}  // namespace strata::metrics
