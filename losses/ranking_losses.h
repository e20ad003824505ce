// Losses for multi-label classification, where each sample has any number of positive
// labels among C classes. y_true is (B, C) with 1 for a positive label and 0 for a
// negative one; y_pred is (B, C) scores (logits). Formulas in docs/training.md.
//
// - weighted sigmoid crossentropy (TensorFlow's weighted_cross_entropy_with_logits):
//     l = (1 − t)·z + (1 + (pos_weight − 1)·t)·softplus(−z), mean over classes.
//   pos_weight > 1 raises recall (missing a positive costs more), < 1 raises precision.
// - rank hinge: mean over pairs (i positive, j negative) of max(0, margin − (z_i − z_j)).
// - rank sigmoid: mean over the same pairs of log(1 + exp(−(z_i − z_j))) (pairwise logistic,
//   RankNet).
// A sample without any (positive, negative) pair has a ranking loss of 0.
#pragma once

#include <string>

#include "losses/loss.h"

namespace strata::losses {

Output weighted_sigmoid_crossentropy(Output y_true, Output logits, double pos_weight);
Output rank_hinge(Output y_true, Output scores, double margin = 1.0);
Output rank_sigmoid(Output y_true, Output scores);

struct WeightedSigmoidCrossentropyOptions {
  double pos_weight = 1.0;
  std::string reduction = "sum_over_batch_size";
  std::string name = "weighted_sigmoid_crossentropy";
};
class WeightedSigmoidCrossentropy : public Loss {
 public:
  explicit WeightedSigmoidCrossentropy(WeightedSigmoidCrossentropyOptions options = {});
};

struct RankHingeOptions {
  double margin = 1.0;
  std::string reduction = "sum_over_batch_size";
  std::string name = "rank_hinge";
};
class RankHinge : public Loss {
 public:
  explicit RankHinge(RankHingeOptions options = {});
};

struct RankSigmoidOptions {
  std::string reduction = "sum_over_batch_size";
  std::string name = "rank_sigmoid";
};
class RankSigmoid : public Loss {
 public:
  explicit RankSigmoid(RankSigmoidOptions options = {});
};

}  // namespace strata::losses
