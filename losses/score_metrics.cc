#include "losses/score_metrics.h"

#include <cmath>

#include "core/ops.h"
#include "losses/accumulating_metric.h"
#include "losses/loss_utils.h"
#include "losses/mean_metric_wrapper.h"

namespace strata::metrics {

namespace {

constexpr double kEpsilonInDouble = 1e-7;  // Keras's backend.epsilon()

class FBetaImpl : public AccumulatingMetric {
 public:
  FBetaImpl(FBetaScoreOptions o) : o_(std::move(o)) {
    name = o_.name;
    if (o_.average != "micro" && o_.average != "macro" && o_.average != "weighted") {
      throw ValueError("F1Score/FBetaScore: average must be 'micro', 'macro' or 'weighted' (Strata logs one number; "
                       "Keras's average=None gives one per class), got '" + o_.average + "'");
    }
    if (!(o_.beta > 0)) throw ValueError("FBetaScore: beta must be positive");
  }

 protected:
  std::vector<Output> statistics(Output y_true, Output y_pred, Output sample_weight) override {
    Output t = ops::cast(y_true, DType::float32);
    Output p = ops::cast(y_pred, DType::float32);
    if (p.shape().rank() != 2 || t.shape().rank() != 2) {
      throw ShapeError("metric '" + name + "' expects y_true and y_pred of shape (batch, classes), got " +
                       t.shape().to_string() + " and " + p.shape().to_string());
    }
    if (o_.threshold) {
      p = ops::greater(p, ops::constant(*p.graph, static_cast<float>(*o_.threshold)));
    } else {
      Output max = ops::reduce_max(p, {-1}, true);
      p = ops::mul(ops::greater_equal(p, max), ops::greater(ops::abs(p), ops::constant(*p.graph, 1e-9f)));
    }
    Output w = weights_like(sample_weight, p);
    auto sum = [&](Output v) { return o_.average == "micro" ? ops::reduce_sum(ops::mul(v, w))
                                                             : ops::reduce_sum(ops::mul(v, w), {0}); };
    return {sum(ops::mul(p, t)), sum(ops::mul(p, ops::sub(1.f, t))), sum(ops::mul(ops::sub(1.f, p), t)), sum(t)};
  }

  double compute(const std::vector<std::vector<double>>& s) const override {
    const double b2 = o_.beta * o_.beta;
    const auto &tp = s[0], &fp = s[1], &fn = s[2], &support = s[3];
    double total_support = 0;
    for (double v : support) total_support += v;
    double acc = 0;
    for (std::size_t c = 0; c < tp.size(); ++c) {
      double precision = tp[c] / (tp[c] + fp[c] + kEpsilonInDouble);
      double recall = tp[c] / (tp[c] + fn[c] + kEpsilonInDouble);
      double f = precision * recall / (b2 * precision + recall + kEpsilonInDouble) * (1 + b2);
      acc += o_.average == "weighted" ? f * support[c] / (total_support + kEpsilonInDouble) : f / static_cast<double>(tp.size());
    }
    return acc;
  }

 private:
  FBetaScoreOptions o_;
};

class R2Impl : public AccumulatingMetric {
 public:
  explicit R2Impl(R2ScoreOptions o) : o_(std::move(o)) {
    name = o_.name;
    if (o_.class_aggregation != "uniform_average" && o_.class_aggregation != "variance_weighted_average") {
      throw ValueError("R2Score: class_aggregation must be 'uniform_average' or 'variance_weighted_average', got '" +
                       o_.class_aggregation + "'");
    }
    if (o_.num_regressors < 0) throw ValueError("R2Score: num_regressors must be >= 0");
  }

 protected:
  std::vector<Output> statistics(Output y_true, Output y_pred, Output sample_weight) override {
    Output t = ops::cast(y_true, DType::float32);
    Output p = ops::cast(y_pred, DType::float32);
    std::tie(t, p) = losses::squeeze_or_expand_to_same_rank(t, p);
    if (t.shape().rank() != 2) {
      throw ShapeError("R2Score expects 2D targets (batch, outputs), got " + t.shape().to_string());
    }
    Output w = weights_like(sample_weight, t);
    Output wt = ops::mul(t, w);
    return {ops::reduce_sum(wt, {0}), ops::reduce_sum(ops::mul(t, wt), {0}),
            ops::reduce_sum(ops::mul(ops::square(ops::sub(t, p)), w), {0}), ops::reduce_sum(w, {0}),
            ops::reduce_sum(ops::ones_like(t))};
  }

  double compute(const std::vector<std::vector<double>>& s) const override {
    const auto &sum = s[0], &squared_sum = s[1], &mse = s[2], &count = s[3];
    if (s[4][0] == 0) return 0.0;  // nothing seen since the last reset
    double uniform = 0, weighted = 0, total_weight = 0;
    for (std::size_t c = 0; c < sum.size(); ++c) {
      double mean = sum[c] / count[c];
      double total = squared_sum[c] - sum[c] * mean;
      double raw = 1 - mse[c] / total;
      if (std::isinf(raw)) raw = 0;
      uniform += raw / static_cast<double>(sum.size());
      weighted += total * raw;
      total_weight += total;
    }
    double r2 = o_.class_aggregation == "uniform_average" ? uniform : weighted / total_weight;
    const double n = s[4][0], k = o_.num_regressors;
    if (k != 0 && k < n - 1) r2 = 1 - (1 - r2) * (n - 1) / (n - k - 1);
    return r2;
  }

 private:
  R2ScoreOptions o_;
};

class RmseImpl : public MeanMetricWrapper {
 public:
  explicit RmseImpl(std::string metric_name)
      : MeanMetricWrapper([](Output t, Output p) {
          Output a = ops::cast(t, DType::float32), b = ops::cast(p, DType::float32);
          std::tie(a, b) = losses::squeeze_or_expand_to_same_rank(a, b);
          return ops::square(ops::sub(b, a));
        }, std::move(metric_name)) {}
  float result() const override { return std::sqrt(MeanMetricWrapper::result()); }
};

// 1 where the label's prediction has fewer than k strictly larger predictions.
Output in_top_k(Output labels, Output y_pred, int k) {
  Output p = ops::cast(y_pred, DType::float32);
  Output target = ops::pick(p, labels);  // (B,)
  Output larger = ops::reduce_sum(ops::greater(p, ops::reshape(target, {-1, 1})), {-1});
  return ops::less(larger, ops::constant(*p.graph, static_cast<float>(k)));
}

}  // namespace

FBetaScore::FBetaScore(FBetaScoreOptions o) : Metric(std::make_shared<FBetaImpl>(std::move(o))) {}

F1Score::F1Score(F1ScoreOptions o)
    : Metric(std::make_shared<FBetaImpl>(FBetaScoreOptions{.average = o.average, .beta = 1.0,
                                                           .threshold = o.threshold, .name = o.name})) {}

R2Score::R2Score(R2ScoreOptions o) : Metric(std::make_shared<R2Impl>(std::move(o))) {}

RootMeanSquaredError::RootMeanSquaredError(RootMeanSquaredErrorOptions o)
    : Metric(std::make_shared<RmseImpl>(o.name)) {}

TopKCategoricalAccuracy::TopKCategoricalAccuracy(TopKCategoricalAccuracyOptions o)
    : Metric(std::make_shared<MeanMetricWrapper>(
          [k = o.k](Output t, Output p) {
            return in_top_k(ops::argmax(ops::cast(t, DType::float32), -1), p, k);
          },
          o.name)) {}

SparseTopKCategoricalAccuracy::SparseTopKCategoricalAccuracy(SparseTopKCategoricalAccuracyOptions o)
    : Metric(std::make_shared<MeanMetricWrapper>(
          [k = o.k](Output t, Output p) {
            Output labels = t;
            if (labels.shape().rank() == p.shape().rank()) labels = losses::squeeze_last(labels);
            return in_top_k(labels, p, k);
          },
          o.name)) {}

}  // namespace strata::metrics
