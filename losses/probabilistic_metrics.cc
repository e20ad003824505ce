#include "losses/probabilistic_metrics.h"

#include "losses/crossentropy.h"
#include "losses/mean_metric_wrapper.h"

namespace strata::metrics {

BinaryCrossentropy::BinaryCrossentropy(BinaryCrossentropyOptions o)
    : Metric(std::make_shared<MeanMetricWrapper>(
          [o](Output t, Output p) { return losses::binary_crossentropy(t, p, o.from_logits, o.label_smoothing); },
          o.name)) {}

CategoricalCrossentropy::CategoricalCrossentropy(CategoricalCrossentropyOptions o)
    : Metric(std::make_shared<MeanMetricWrapper>(
          [o](Output t, Output p) {
            return losses::categorical_crossentropy(t, p, o.from_logits, o.label_smoothing, o.axis);
          },
          o.name)) {}

SparseCategoricalCrossentropy::SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions o)
    : Metric(std::make_shared<MeanMetricWrapper>(
          [o](Output t, Output p) { return losses::sparse_categorical_crossentropy(t, p, o.from_logits); },
          o.name)) {}

}  // namespace strata::metrics
