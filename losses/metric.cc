#include "losses/metric.h"

#include <algorithm>
#include <cctype>

#include "losses/accuracy_metrics.h"
#include "losses/confusion_metrics.h"
#include "losses/mean_metric_wrapper.h"
#include "losses/probabilistic_metrics.h"
#include "losses/regression_metrics.h"
#include "losses/score_metrics.h"

namespace strata::metrics {

std::vector<Output> MetricImpl::build_values(Output, Output) {
  throw ValueError("metric '" + name + "' is updated from (y_true, y_pred), not from values alone: pass both");
}

// Keras's Mean: update_state(values, sample_weight) adds sum(w * values) and sum(w),
// reduced per sample as Keras's reduce_to_samplewise_values does.
class MeanImpl : public MetricImpl {
 public:
  explicit MeanImpl(std::string metric_name) { name = std::move(metric_name); }
  std::vector<Output> build(Output, Output, Output) override {
    throw ValueError("metric '" + name +
                     "' is a Mean of values: update it with the values (update_state(metric, values))");
  }
  std::vector<Output> build_values(Output values, Output sample_weight) override {
    if (!values.valid()) throw ValueError("metric '" + name + "': the values are undefined");
    NameScope scope(*values.graph, name);
    return weighted_mean_statistics(values, sample_weight);
  }
  void update(const std::vector<Tensor>& statistics) override {
    if (statistics.size() != 2) {
      throw ValueError("metric '" + name + "': update expects 2 statistics (total, count), got " +
                       std::to_string(statistics.size()));
    }
    total_ += statistics[0].item();  // sum(w * values)
    count_ += statistics[1].item();  // sum(w)
  }
  void add(double value, double weight) {
    total_ += value * weight;
    count_ += weight;
  }
  float result() const override { return count_ != 0.0 ? static_cast<float>(total_ / count_) : 0.f; }
  void reset() override { total_ = count_ = 0.0; }

 private:
  double total_ = 0.0, count_ = 0.0;
};

Mean::Mean(MeanOptions options) : Metric(std::make_shared<MeanImpl>(std::move(options.name))) {}

void Mean::update(double value, double weight) { static_cast<MeanImpl&>(impl()).add(value, weight); }

MetricImpl& Metric::impl() const {
  if (!impl_) throw ValueError("use of an undefined Metric (default-constructed handle)");
  return *impl_;
}

// Keras 3's compile_utils.get_metric: "accuracy"/"acc" becomes binary accuracy when
// y_pred's last dim is 1, sparse categorical when y_true has a lower rank (or a last dim
// of 1 against several classes), else categorical. The name stays what the user wrote.
Metric get(const std::string& identifier, const Shape& y_true, const Shape& y_pred) {
  std::string lower = identifier;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "accuracy" || lower == "acc") {
    if (y_true.rank() < 1 || y_pred.rank() < 1) {
      throw ShapeError("metric '" + identifier + "': cannot resolve accuracy for y_true " + y_true.to_string() +
                       " and y_pred " + y_pred.to_string());
    }
    const std::int64_t pred_last = y_pred.dims().back(), true_last = y_true.dims().back();
    if (pred_last == 1) return BinaryAccuracy({.name = identifier});
    if (y_true.rank() < y_pred.rank() || (true_last == 1 && pred_last > 1)) {
      return SparseCategoricalAccuracy({.name = identifier});
    }
    return CategoricalAccuracy({.name = identifier});
  }
  if (identifier == "binary_accuracy") return BinaryAccuracy({.name = identifier});
  if (identifier == "categorical_accuracy") return CategoricalAccuracy({.name = identifier});
  if (identifier == "sparse_categorical_accuracy") return SparseCategoricalAccuracy({.name = identifier});
  if (identifier == "mse" || identifier == "mean_squared_error") return MeanSquaredError({.name = identifier});
  if (identifier == "mae" || identifier == "mean_absolute_error") return MeanAbsoluteError({.name = identifier});
  if (identifier == "binary_crossentropy") return BinaryCrossentropy({.name = identifier});
  if (identifier == "categorical_crossentropy") return CategoricalCrossentropy({.name = identifier});
  if (identifier == "sparse_categorical_crossentropy") return SparseCategoricalCrossentropy({.name = identifier});
  if (identifier == "precision") return Precision({.name = identifier});
  if (identifier == "recall") return Recall({.name = identifier});
  if (identifier == "auc") return AUC({.name = identifier});
  if (identifier == "f1_score") return F1Score({.name = identifier});
  if (identifier == "r2_score") return R2Score({.name = identifier});
  if (identifier == "root_mean_squared_error") return RootMeanSquaredError({.name = identifier});
  if (identifier == "top_k_categorical_accuracy") return TopKCategoricalAccuracy({.name = identifier});
  if (identifier == "sparse_top_k_categorical_accuracy") return SparseTopKCategoricalAccuracy({.name = identifier});
  throw ValueError("Could not interpret metric identifier: '" + identifier +
                   "'. Known metrics: 'accuracy', 'acc', 'binary_accuracy', 'categorical_accuracy', "
                   "'sparse_categorical_accuracy', 'mse', 'mean_squared_error', 'mae', 'mean_absolute_error', "
                   "'binary_crossentropy', 'categorical_crossentropy', 'sparse_categorical_crossentropy', 'precision', "
                   "'recall', 'auc', 'f1_score', 'r2_score', 'root_mean_squared_error', 'top_k_categorical_accuracy', "
                   "'sparse_top_k_categorical_accuracy'");
}

}  // namespace strata::metrics
