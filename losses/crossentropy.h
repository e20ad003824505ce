// Crossentropy losses as Keras 3 computes them (keras-spec §2): probabilities are
// clipped to [1e-7, 1 − 1e-7] (categorical ones renormalized first); from_logits uses
// the stable forms (log_softmax; softplus(z) − y·z for sigmoid crossentropy).
#pragma once

#include <string>

#include "losses/loss.h"

namespace strata::losses {

// Keras's loss functions: per-sample values.
// Mean over `axis` of the elementwise sigmoid crossentropy.
Output binary_crossentropy(Output y_true, Output y_pred, bool from_logits = false, double label_smoothing = 0.0,
                           int axis = -1);
// −Σ y·log p over `axis`; y_true one-hot (or soft) with y_pred's shape.
Output categorical_crossentropy(Output y_true, Output y_pred, bool from_logits = false,
                                double label_smoothing = 0.0, int axis = -1);
// Integer class labels of shape (B,) or (B, 1), integer or float dtype. A label outside
// [0, classes) throws ValueError when the step runs, naming the label.
Output sparse_categorical_crossentropy(Output y_true, Output y_pred, bool from_logits = false);

// Fields in the order of Keras's signature.
struct BinaryCrossentropyOptions {
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name = "binary_crossentropy";
};

class BinaryCrossentropy : public Loss {
 public:
  explicit BinaryCrossentropy(BinaryCrossentropyOptions options = {});
  const BinaryCrossentropyOptions& options() const;
};

struct CategoricalCrossentropyOptions {
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name = "categorical_crossentropy";
};

class CategoricalCrossentropy : public Loss {
 public:
  explicit CategoricalCrossentropy(CategoricalCrossentropyOptions options = {});
  const CategoricalCrossentropyOptions& options() const;
};

// Keras's ignore_class is not supported (yet).
struct SparseCategoricalCrossentropyOptions {
  bool from_logits = false;
  std::string reduction = "sum_over_batch_size";
  std::string name = "sparse_categorical_crossentropy";
};

class SparseCategoricalCrossentropy : public Loss {
 public:
  explicit SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions options = {});
  const SparseCategoricalCrossentropyOptions& options() const;
};

}  // namespace strata::losses
