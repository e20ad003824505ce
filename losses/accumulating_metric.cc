#include "losses/accumulating_metric.h"

#include "core/ops.h"

namespace strata::metrics {

std::vector<Output> AccumulatingMetric::build(Output y_true, Output y_pred, Output sample_weight) {
  if (!y_true.valid() || !y_pred.valid()) throw ValueError("metric '" + name + "': y_true and y_pred must be defined");
  NameScope scope(*y_pred.graph, name);
  return statistics(y_true, y_pred, sample_weight);
}

void AccumulatingMetric::update(const std::vector<Tensor>& statistics) {
  if (sums_.empty()) {
    for (const auto& s : statistics) sums_.emplace_back(static_cast<std::size_t>(s.size()), 0.0);
  }
  if (statistics.size() != sums_.size()) {
    throw ValueError("metric '" + name + "': update expects " + std::to_string(sums_.size()) + " statistics, got " +
                     std::to_string(statistics.size()));
  }
  for (std::size_t i = 0; i < statistics.size(); ++i) {
    if (static_cast<std::size_t>(statistics[i].size()) != sums_[i].size()) {
      throw ShapeError("metric '" + name + "': statistic " + std::to_string(i) + " changed size from " +
                       std::to_string(sums_[i].size()) + " to " + std::to_string(statistics[i].size()));
    }
    for (std::int64_t j = 0; j < statistics[i].size(); ++j) sums_[i][static_cast<std::size_t>(j)] += statistics[i].item(j);
  }
}

float AccumulatingMetric::result() const {
  if (sums_.empty()) return 0.f;
  return static_cast<float>(compute(sums_));
}

void AccumulatingMetric::reset() {
  for (auto& s : sums_) std::fill(s.begin(), s.end(), 0.0);
}

Output AccumulatingMetric::constant_vector(Graph& graph, const std::vector<float>& values) {
  Variable v(name + "/constant_" + std::to_string(constants_.size()),
             Tensor::from_vector(Shape{static_cast<std::int64_t>(values.size())}, values), false);
  constants_.push_back(v);
  return graph.variable(v);
}

Output AccumulatingMetric::weights_like(Output sample_weight, Output like) {
  if (!sample_weight.valid()) return ops::ones_like(like);
  Output w = ops::cast(sample_weight, DType::float32);
  const int rank = like.shape().rank();
  if (w.shape().rank() < rank) {
    std::vector<std::int64_t> dims(static_cast<std::size_t>(rank), 1);
    dims[0] = -1;
    for (int i = 1; i < w.shape().rank(); ++i) dims[static_cast<std::size_t>(i)] = w.shape().dims()[static_cast<std::size_t>(i)];
    w = ops::reshape(w, dims);
  }
  return ops::broadcast_like(w, like);
}

}  // namespace strata::metrics
