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

// Keras's Mean metric: the weighted mean of values (used for the loss tracker).
class Mean {
 public:
  void update(double value, double weight = 1.0) {
    total_ += value * weight;
    count_ += weight;
  }
  float result() const { return count_ > 0 ? static_cast<float>(total_ / count_) : 0.f; }
  void reset() { total_ = count_ = 0; }

 private:
  double total_ = 0, count_ = 0;
};

}  // namespace strata::metrics
