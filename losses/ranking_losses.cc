#include "losses/ranking_losses.h"

#include "core/ops.h"
#include "losses/loss_utils.h"

namespace strata::losses {

namespace {

std::pair<Output, Output> prepare(const char* loss, Output y_true, Output y_pred) {
  y_pred = ops::cast(y_pred, DType::float32);
  y_true = ops::cast(y_true, DType::float32);
  std::tie(y_true, y_pred) = squeeze_or_expand_to_same_rank(y_true, y_pred);
  if (y_pred.shape().rank() != 2 || !y_true.shape().is_compatible_with(y_pred.shape())) {
    throw ShapeError(std::string(loss) + ": expects y_true and y_pred of shape (batch, classes), got " +
                     y_true.shape().to_string() + " and " + y_pred.shape().to_string());
  }
  return {y_true, y_pred};
}

// (B, C) scores -> (B, C, C) differences z_i − z_j, and the mask t_i·(1 − t_j) of
// (positive i, negative j) pairs.
std::pair<Output, Output> pairs(Output t, Output z) {
  const std::int64_t c = z.shape().dims().back();
  if (c == kUnknownDim) throw ShapeError("ranking losses need a known number of classes");
  Output zi = ops::reshape(z, {-1, c, 1});
  Output zj = ops::reshape(z, {-1, 1, c});
  Output ti = ops::reshape(t, {-1, c, 1});
  Output tj = ops::reshape(t, {-1, 1, c});
  return {ops::sub(zi, zj), ops::mul(ti, ops::sub(1.f, tj))};
}

// Σ mask·value / max(Σ mask, 1) per sample.
Output pair_mean(Output values, Output mask) {
  Output total = ops::reduce_sum(ops::mul(values, mask), {1, 2});
  Output count = ops::reduce_sum(mask, {1, 2});
  return ops::div(total, ops::maximum(count, 1.f));
}

}  // namespace

Output weighted_sigmoid_crossentropy(Output y_true, Output logits, double pos_weight) {
  auto [t, z] = prepare("weighted_sigmoid_crossentropy", y_true, logits);
  Output l = ops::add(ops::mul(t, static_cast<float>(pos_weight - 1.0)), 1.f);
  Output value = ops::add(ops::mul(ops::sub(1.f, t), z), ops::mul(l, ops::softplus(ops::neg(z))));
  return ops::reduce_mean(value, {-1});
}

Output rank_hinge(Output y_true, Output scores, double margin) {
  auto [t, z] = prepare("rank_hinge", y_true, scores);
  auto [diff, mask] = pairs(t, z);
  return pair_mean(ops::relu(ops::sub(static_cast<float>(margin), diff)), mask);
}

Output rank_sigmoid(Output y_true, Output scores) {
  auto [t, z] = prepare("rank_sigmoid", y_true, scores);
  auto [diff, mask] = pairs(t, z);
  return pair_mean(ops::softplus(ops::neg(diff)), mask);
}

WeightedSigmoidCrossentropy::WeightedSigmoidCrossentropy(WeightedSigmoidCrossentropyOptions o)
    : Loss(from_function(
          o.name, [w = o.pos_weight](Output t, Output p) { return weighted_sigmoid_crossentropy(t, p, w); },
          o.reduction)) {
  if (!(o.pos_weight > 0)) throw ValueError("WeightedSigmoidCrossentropy: pos_weight must be positive");
}

RankHinge::RankHinge(RankHingeOptions o)
    : Loss(from_function(o.name, [m = o.margin](Output t, Output p) { return rank_hinge(t, p, m); }, o.reduction)) {}

RankSigmoid::RankSigmoid(RankSigmoidOptions o) : Loss(from_function(o.name, rank_sigmoid, o.reduction)) {}

}  // namespace strata::losses
