// Accuracy metrics as Keras 3 defines them: BinaryAccuracy (prediction > threshold),
// CategoricalAccuracy (argmax of one-hot labels), SparseCategoricalAccuracy (integer
// labels of shape (B,) or (B, 1)). Each is a streaming weighted mean of 0/1 matches.
#pragma once

#include <string>

#include "losses/metric.h"

namespace strata::metrics {

// Keras's metric functions: 1 where the prediction matches, else 0.
Output binary_accuracy(Output y_true, Output y_pred, double threshold = 0.5);
Output categorical_accuracy(Output y_true, Output y_pred);
Output sparse_categorical_accuracy(Output y_true, Output y_pred);

// Fields in the order of Keras's signature.
struct BinaryAccuracyOptions {
  std::string name = "binary_accuracy";
  double threshold = 0.5;
};

class BinaryAccuracy : public Metric {
 public:
  explicit BinaryAccuracy(BinaryAccuracyOptions options = {});
};

struct CategoricalAccuracyOptions {
  std::string name = "categorical_accuracy";
};

class CategoricalAccuracy : public Metric {
 public:
  explicit CategoricalAccuracy(CategoricalAccuracyOptions options = {});
};

struct SparseCategoricalAccuracyOptions {
  std::string name = "sparse_categorical_accuracy";
};

class SparseCategoricalAccuracy : public Metric {
 public:
  explicit SparseCategoricalAccuracy(SparseCategoricalAccuracyOptions options = {});
};

}  // namespace strata::metrics
