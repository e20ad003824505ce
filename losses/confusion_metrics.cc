#include "losses/confusion_metrics.h"

#include <cmath>

#include "core/ops.h"
#include "losses/accumulating_metric.h"
#include "losses/loss_utils.h"

namespace strata::metrics {

namespace {

double divide_no_nan(double a, double b) { return b == 0.0 ? 0.0 : a / b; }

// Sums over every element of (pred > thresholds[k]) masks: tp, fp, tn, fn, each (T,).
class ConfusionMetric : public AccumulatingMetric {
 public:
  enum class Kind { precision, recall, auc_roc, auc_pr };
  ConfusionMetric(Kind kind, std::vector<float> thresholds, std::string metric_name)
      : kind_(kind), thresholds_(std::move(thresholds)) {
    name = std::move(metric_name);
  }

 protected:
  std::vector<Output> statistics(Output y_true, Output y_pred, Output sample_weight) override {
    Output t = ops::cast(y_true, DType::float32);
    Output p = ops::cast(y_pred, DType::float32);
    std::tie(t, p) = losses::squeeze_or_expand_to_same_rank(t, p);
    Output w = weights_like(sample_weight, p);
    t = ops::reshape(ops::broadcast_like(t, p), {-1, 1});
    w = ops::reshape(w, {-1, 1});
    p = ops::reshape(p, {-1, 1});
    const auto count = static_cast<std::int64_t>(thresholds_.size());
    Output thr = ops::reshape(constant_vector(*p.graph, thresholds_), {1, count});
    Output above = ops::greater(p, thr);  // (N, T)
    Output positive = ops::mul(t, w), negative = ops::mul(ops::sub(1.f, t), w);
    Output tp = ops::reduce_sum(ops::mul(above, positive), {0});
    Output fp = ops::reduce_sum(ops::mul(above, negative), {0});
    Output below = ops::sub(1.f, above);
    Output tn = ops::reduce_sum(ops::mul(below, negative), {0});
    Output fn = ops::reduce_sum(ops::mul(below, positive), {0});
    return {tp, fp, tn, fn};
  }

  double compute(const std::vector<std::vector<double>>& s) const override {
    const auto &tp = s[0], &fp = s[1], &tn = s[2], &fn = s[3];
    switch (kind_) {
      case Kind::precision: return divide_no_nan(tp[0], tp[0] + fp[0]);
      case Kind::recall: return divide_no_nan(tp[0], tp[0] + fn[0]);
      case Kind::auc_roc: {
        double area = 0;
        for (std::size_t i = 0; i + 1 < tp.size(); ++i) {
          double x0 = divide_no_nan(fp[i], fp[i] + tn[i]), x1 = divide_no_nan(fp[i + 1], fp[i + 1] + tn[i + 1]);
          double y0 = divide_no_nan(tp[i], tp[i] + fn[i]), y1 = divide_no_nan(tp[i + 1], tp[i + 1] + fn[i + 1]);
          area += (x0 - x1) * (y0 + y1) / 2.0;
        }
        return area;
      }
      case Kind::auc_pr: {
        // Keras's interpolate_pr_auc (Davis & Goadrich 2006).
        double area = 0;
        for (std::size_t i = 0; i + 1 < tp.size(); ++i) {
          double dtp = tp[i] - tp[i + 1];
          double p0 = tp[i] + fp[i], p1 = tp[i + 1] + fp[i + 1];
          double slope = divide_no_nan(dtp, std::max(p0 - p1, 0.0));
          double intercept = tp[i + 1] - slope * p1;
          double ratio = (p0 > 0 && p1 > 0) ? divide_no_nan(p0, std::max(p1, 0.0)) : 1.0;
          area += divide_no_nan(slope * (dtp + intercept * std::log(ratio)), std::max(tp[i + 1] + fn[i + 1], 0.0));
        }
        return area;
      }
    }
    return 0;
  }

 private:
  Kind kind_;
  std::vector<float> thresholds_;
};

std::vector<float> auc_thresholds(int n) {
  if (n <= 1) throw ValueError("AUC: num_thresholds must be > 1, got " + std::to_string(n));
  std::vector<float> t{0.f - 1e-7f};
  for (int i = 0; i < n - 2; ++i) t.push_back(static_cast<float>(static_cast<double>(i + 1) / (n - 1)));
  t.push_back(1.f + 1e-7f);
  return t;
}

}  // namespace

Precision::Precision(PrecisionOptions o)
    : Metric(std::make_shared<ConfusionMetric>(ConfusionMetric::Kind::precision,
                                               std::vector<float>{static_cast<float>(o.thresholds)}, o.name)) {}

Recall::Recall(RecallOptions o)
    : Metric(std::make_shared<ConfusionMetric>(ConfusionMetric::Kind::recall,
                                               std::vector<float>{static_cast<float>(o.thresholds)}, o.name)) {}

AUC::AUC(AUCOptions o)
    : Metric(std::make_shared<ConfusionMetric>(
          o.curve == "PR" ? ConfusionMetric::Kind::auc_pr : ConfusionMetric::Kind::auc_roc,
          auc_thresholds(o.num_thresholds), o.name)) {
  if (o.curve != "ROC" && o.curve != "PR") {
    throw ValueError("AUC: invalid curve '" + o.curve + "'; expected 'ROC' or 'PR'");
  }
}

}  // namespace strata::metrics
