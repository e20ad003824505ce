// Streaming metrics over per-class sums: F1Score / FBetaScore (Keras 3's
// f_score_metrics) and R2Score (Keras 3's regression_metrics), plus the top-k accuracies
// and RootMeanSquaredError.
#pragma once

#include <optional>
#include <string>

#include "losses/metric.h"

namespace strata::metrics {

// Fields in the order of Keras's signatures. average: "micro", "macro" or "weighted".
// Keras's default average=None returns one score per class; Strata logs scalars, so
// the default here is "macro" (the mean of the per-class scores), and None is refused.
// threshold: predictions > threshold are positive; unset: the argmax of each row.
struct FBetaScoreOptions {
  std::string average = "macro";
  double beta = 1.0;
  std::optional<double> threshold;
  std::string name = "fbeta_score";
};
class FBetaScore : public Metric {
 public:
  explicit FBetaScore(FBetaScoreOptions options = {});
};

struct F1ScoreOptions {
  std::string average = "macro";
  std::optional<double> threshold;
  std::string name = "f1_score";
};
class F1Score : public Metric {
 public:
  explicit F1Score(F1ScoreOptions options = {});
};

// 1 − SS_res/SS_tot per output column, then "uniform_average" or
// "variance_weighted_average"; num_regressors > 0 gives the adjusted R².
struct R2ScoreOptions {
  std::string class_aggregation = "uniform_average";
  int num_regressors = 0;
  std::string name = "r2_score";
};
class R2Score : public Metric {
 public:
  explicit R2Score(R2ScoreOptions options = {});
};

// sqrt of the streaming weighted mean of squared errors.
struct RootMeanSquaredErrorOptions {
  std::string name = "root_mean_squared_error";
};
class RootMeanSquaredError : public Metric {
 public:
  explicit RootMeanSquaredError(RootMeanSquaredErrorOptions options = {});
};

// The true class (argmax of one-hot y_true, or the integer label) is among the k largest
// predictions: no more than k − 1 predictions are strictly larger (ties count as hits).
struct TopKCategoricalAccuracyOptions {
  int k = 5;
  std::string name = "top_k_categorical_accuracy";
};
class TopKCategoricalAccuracy : public Metric {
 public:
  explicit TopKCategoricalAccuracy(TopKCategoricalAccuracyOptions options = {});
};

struct SparseTopKCategoricalAccuracyOptions {
  int k = 5;
  std::string name = "sparse_top_k_categorical_accuracy";
};
class SparseTopKCategoricalAccuracy : public Metric {
 public:
  explicit SparseTopKCategoricalAccuracy(SparseTopKCategoricalAccuracyOptions options = {});
};

}  // namespace strata::metrics
