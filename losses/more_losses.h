// The rest of Keras 3's losses (keras-spec §1.5), with Keras's formulas and defaults:
// Huber, LogCosh, KLDivergence, Poisson, Hinge, SquaredHinge, CategoricalHinge,
// CosineSimilarity and BinaryFocalCrossentropy. Each per-sample function reduces over
// the last axis; the classes wrap them with a reduction, like Keras's
// LossFunctionWrapper. Multi-label losses (pos_weight, ranking) are in ranking_losses.h.
#pragma once

#include <string>

#include "losses/loss.h"

namespace strata::losses {

// mean(0.5·e² if |e| <= delta else delta·|e| − 0.5·delta²), e = y_pred − y_true.
Output huber(Output y_true, Output y_pred, double delta = 1.0);
// mean(d + softplus(−2d) − log 2), d = y_pred − y_true (= log cosh d, stable).
Output log_cosh(Output y_true, Output y_pred);
// sum(t·log(t / p)) with t, p clipped to [1e-7, 1].
Output kl_divergence(Output y_true, Output y_pred);
// mean(p − t·log(p + 1e-7)).
Output poisson(Output y_true, Output y_pred);
// Labels in {0, 1} (all of them, per batch) become {−1, 1} first, as Keras does.
Output hinge(Output y_true, Output y_pred);          // mean(max(1 − t·p, 0))
Output squared_hinge(Output y_true, Output y_pred);  // mean(max(1 − t·p, 0)²)
// max(max((1 − t)·p) − sum(t·p) + 1, 0).
Output categorical_hinge(Output y_true, Output y_pred);
// −sum(l2_normalize(t)·l2_normalize(p)) over `axis` (norms floored at 1e-7).
Output cosine_similarity(Output y_true, Output y_pred, int axis = -1);
// mean((1 − p_t)^gamma · bce) with p_t = t·p + (1 − t)(1 − p) (probabilities clipped for
// the bce); apply_class_balancing multiplies by alpha·t + (1 − alpha)(1 − t).
Output binary_focal_crossentropy(Output y_true, Output y_pred, bool apply_class_balancing = false, double alpha = 0.25,
                                 double gamma = 2.0, bool from_logits = false, double label_smoothing = 0.0);

// Fields in the order of Keras's signatures.
struct HuberOptions {
  double delta = 1.0;
  std::string reduction = "sum_over_batch_size";
  std::string name = "huber_loss";
};
class Huber : public Loss {
 public:
  explicit Huber(HuberOptions options = {});
};

struct LossOptions {
  std::string reduction = "sum_over_batch_size";
  std::string name;  // empty: Keras's name for the class
};
class LogCosh : public Loss {
 public:
  explicit LogCosh(LossOptions options = {});
};
class KLDivergence : public Loss {
 public:
  explicit KLDivergence(LossOptions options = {});
};
class Poisson : public Loss {
 public:
  explicit Poisson(LossOptions options = {});
};
class Hinge : public Loss {
 public:
  explicit Hinge(LossOptions options = {});
};
class SquaredHinge : public Loss {
 public:
  explicit SquaredHinge(LossOptions options = {});
};
class CategoricalHinge : public Loss {
 public:
  explicit CategoricalHinge(LossOptions options = {});
};

struct CosineSimilarityOptions {
  int axis = -1;
  std::string reduction = "sum_over_batch_size";
  std::string name = "cosine_similarity";
};
class CosineSimilarity : public Loss {
 public:
  explicit CosineSimilarity(CosineSimilarityOptions options = {});
};

struct BinaryFocalCrossentropyOptions {
  bool apply_class_balancing = false;
  double alpha = 0.25;
  double gamma = 2.0;
  bool from_logits = false;
  double label_smoothing = 0.0;
  int axis = -1;  // only -1 is supported
  std::string reduction = "sum_over_batch_size";
  std::string name = "binary_focal_crossentropy";
};
class BinaryFocalCrossentropy : public Loss {
 public:
  explicit BinaryFocalCrossentropy(BinaryFocalCrossentropyOptions options = {});
};

}  // namespace strata::losses
