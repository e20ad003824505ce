#include "losses/mean_metric_wrapper.h"

#include "core/ops.h"
#include "losses/loss_utils.h"

namespace strata::metrics {

std::vector<Output> weighted_mean_statistics(Output values, Output sample_weight) {
  values = ops::cast(values, DType::float32);
  Output count;
  if (sample_weight.valid()) {
    Output w = ops::cast(sample_weight, DType::float32);
    std::tie(values, w) = losses::squeeze_or_expand_to_same_rank(values, w);
    const int w_rank = w.shape().rank(), v_rank = values.shape().rank();
    if (v_rank > w_rank) values = ops::reduce_mean(values, losses::axes_range(w_rank, v_rank));
    if (w.shape() != values.shape() || !w.shape().is_fully_defined()) w = ops::broadcast_like(w, values);
    values = ops::mul(values, w);
    if (w_rank > 1) w = ops::reduce_mean(w, losses::axes_range(1, w_rank));
    count = ops::reduce_sum(w);
  }
  const int rank = values.shape().rank();
  if (rank > 1) values = ops::reduce_mean(values, losses::axes_range(1, rank));
  if (!count.valid()) count = rank >= 1 ? ops::reduce_sum(ops::ones_like(values)) : ops::constant(*values.graph, 1.f);
  return {ops::reduce_sum(values), count};
}

MeanMetricWrapper::MeanMetricWrapper(MetricFn fn, std::string metric_name) : fn_(std::move(fn)) {
  name = std::move(metric_name);
}

std::vector<Output> MeanMetricWrapper::build(Output y_true, Output y_pred, Output sample_weight) {
  if (!y_true.valid() || !y_pred.valid()) throw ValueError("metric '" + name + "': y_true and y_pred must be defined");
  NameScope scope(*y_pred.graph, name);
  return weighted_mean_statistics(fn_(y_true, y_pred), sample_weight);
}

void MeanMetricWrapper::update(const std::vector<Tensor>& statistics) {
  if (statistics.size() != 2) {
    throw ValueError("metric '" + name + "': update expects 2 statistics (total, count), got " +
                     std::to_string(statistics.size()));
  }
  total_ += statistics[0].item();
  count_ += statistics[1].item();
}

float MeanMetricWrapper::result() const {
  return count_ != 0.0 ? static_cast<float>(total_ / count_) : 0.f;  // divide_no_nan
}

void MeanMetricWrapper::reset() { total_ = count_ = 0.0; }

}  // namespace strata::metrics
