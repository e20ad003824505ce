// Crossentropy metrics (Keras's probabilistic_metrics): streaming means of the
// per-sample crossentropies, so "binary_crossentropy" can be watched like "accuracy".
#pragma once

#include <string>

#include "losses/metric.h"

namespace strata::metrics {

// Fields in the order of Keras's signature.
struct BinaryCrossentropyOptions {
  std::string name = "binary_crossentropy";
  bool from_logits = false;
  double label_smoothing = 0.0;
};

class BinaryCrossentropy : public Metric {
 public:
  explicit BinaryCrossentropy(BinaryCrossentropyOptions options = {});
};

struct CategoricalCrossentropyOptions {
  std::string name = "categorical_crossentropy";
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
};

class CategoricalCrossentropy : public Metric {
 public:
  explicit CategoricalCrossentropy(CategoricalCrossentropyOptions options = {});
};

struct SparseCategoricalCrossentropyOptions {
  std::string name = "sparse_categorical_crossentropy";
  bool from_logits = false;
};

class SparseCategoricalCrossentropy : public Metric {
 public:
  explicit SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions options = {});
};

}  // namespace strata::metrics
