// Confusion-matrix metrics as Keras 3 computes them: Precision, Recall (prediction >
// threshold, default 0.5) and AUC (ROC or PR over num_thresholds thresholds spread
// evenly on [0, 1], plus −ε and 1+ε; trapezoids for ROC, Davis & Goadrich interpolation
// for PR). Every element of y_pred counts (multi-label outputs are flattened, as Keras
// does with multi_label = false); sample weights are per sample.
#pragma once

#include <string>

#include "losses/metric.h"

namespace strata::metrics {

// Fields in the order of Keras's signatures (thresholds: one value here).
struct PrecisionOptions {
  double thresholds = 0.5;
  std::string name = "precision";
};
class Precision : public Metric {
 public:
  explicit Precision(PrecisionOptions options = {});
};

struct RecallOptions {
  double thresholds = 0.5;
  std::string name = "recall";
};
class Recall : public Metric {
 public:
  explicit Recall(RecallOptions options = {});
};

struct AUCOptions {
  int num_thresholds = 200;
  std::string curve = "ROC";  // or "PR"
  std::string name = "auc";
};
class AUC : public Metric {
 public:
  explicit AUC(AUCOptions options = {});
};

}  // namespace strata::metrics
