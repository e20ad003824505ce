#include "losses/accuracy_metrics.h"

#include "core/ops.h"
#include "losses/loss_utils.h"
#include "losses/mean_metric_wrapper.h"

namespace strata::metrics {

Output binary_accuracy(Output y_true, Output y_pred, double threshold) {
  Output t = ops::cast(y_true, DType::float32);
  Output p = ops::cast(y_pred, DType::float32);
  std::tie(t, p) = losses::squeeze_or_expand_to_same_rank(t, p);
  return ops::equal(t, ops::greater(p, ops::constant(*p.graph, static_cast<float>(threshold))));
}

Output categorical_accuracy(Output y_true, Output y_pred) {
  if (y_pred.shape().rank() < 1 || y_true.shape().rank() != y_pred.shape().rank()) {
    throw ShapeError("categorical_accuracy: y_true of shape " + y_true.shape().to_string() +
                     " must be one-hot with the rank of y_pred " + y_pred.shape().to_string() +
                     " (for integer labels use sparse_categorical_accuracy)");
  }
  Output t = ops::cast(ops::argmax(ops::cast(y_true, DType::float32), -1), DType::float32);
  Output p = ops::cast(ops::argmax(ops::cast(y_pred, DType::float32), -1), DType::float32);
  return ops::equal(t, p);
}

Output sparse_categorical_accuracy(Output y_true, Output y_pred) {
  Output t = ops::cast(y_true, DType::float32);
  if (y_pred.shape().rank() < 1) throw ShapeError("sparse_categorical_accuracy: y_pred must have rank >= 1");
  if (t.shape().rank() == y_pred.shape().rank()) t = losses::squeeze_last(t);
  Output p = ops::cast(ops::argmax(ops::cast(y_pred, DType::float32), -1), DType::float32);
  return ops::equal(t, p);
}

BinaryAccuracy::BinaryAccuracy(BinaryAccuracyOptions options)
    : Metric(std::make_shared<MeanMetricWrapper>(
          [threshold = options.threshold](Output t, Output p) { return binary_accuracy(t, p, threshold); },
          options.name)) {}

CategoricalAccuracy::CategoricalAccuracy(CategoricalAccuracyOptions options)
    : Metric(std::make_shared<MeanMetricWrapper>(categorical_accuracy, options.name)) {}

SparseCategoricalAccuracy::SparseCategoricalAccuracy(SparseCategoricalAccuracyOptions options)
    : Metric(std::make_shared<MeanMetricWrapper>(sparse_categorical_accuracy, options.name)) {}

}  // namespace strata::metrics
