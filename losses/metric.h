// Metric: a streaming Keras metric. Each batch, the graph computes small statistics
// (for example the sum of correct predictions and the count); the metric accumulates
// them on the host, so its result covers every batch since the last reset (one epoch).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace strata::metrics {

class MetricImpl {
 public:
  virtual ~MetricImpl() = default;
  // Adds nodes computing this batch's statistics; returns the outputs to fetch.
  virtual std::vector<Output> build(Output y_true, Output y_pred, Output sample_weight) = 0;
  // The same for a metric of values (Keras's Mean.update_state(values, sample_weight));
  // metrics of (y_true, y_pred) throw a ValueError saying so.
  virtual std::vector<Output> build_values(Output values, Output sample_weight);
  // Accumulates the fetched statistics (same order as build's outputs).
  virtual void update(const std::vector<Tensor>& statistics) = 0;
  virtual float result() const = 0;
  virtual void reset() = 0;
  std::string name;  // the log key, e.g. "accuracy" (as the user spelled it)
};

class Metric {
 public:
  Metric() = default;
  explicit Metric(std::shared_ptr<MetricImpl> impl) : impl_(std::move(impl)) {}
  bool defined() const { return impl_ != nullptr; }
  const std::string& name() const { return impl().name; }
  std::vector<Output> build(Output y_true, Output y_pred, Output sample_weight = {}) {
    return impl().build(y_true, y_pred, sample_weight);
  }
  void update(const std::vector<Tensor>& statistics) { impl().update(statistics); }
  float result() const { return impl().result(); }
  void reset() { impl().reset(); }
  MetricImpl& impl() const;

 private:
  std::shared_ptr<MetricImpl> impl_;
};

// Keras's string identifiers. "accuracy"/"acc" resolve per output as Keras 3 does from
// the shapes of y_true and y_pred (binary, sparse categorical, or categorical); the
// metric's name stays the string the user passed.
Metric get(const std::string& identifier, const Shape& y_true, const Shape& y_pred);

class MeanImpl;

// Keras's Mean metric: the weighted mean of the values given since the last reset. fit's
// loss tracker updates it on the host (update(value, weight)); inside a custom step
// (models/step_builder.h) `step.update_state(mean, values)` adds the nodes computing the
// batch's weighted sum and count, which the step fetches and the metric accumulates.
struct MeanOptions {
  std::string name = "mean";
};

class Mean : public Metric {
 public:
  explicit Mean(MeanOptions options = {});
  using Metric::update;
  void update(double value, double weight = 1.0);
};

}  // namespace strata::metrics
