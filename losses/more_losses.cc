#include "losses/more_losses.h"

#include <cmath>

#include "core/ops.h"
#include "losses/loss_utils.h"

namespace strata::losses {

namespace {


// mask ? a : b for a 0/1 float mask.
Output select(Output mask, Output a, Output b) { return ops::add(b, ops::mul(mask, ops::sub(a, b))); }

// Keras's convert_binary_labels_to_hinge: when every label is 0 or 1, 2t − 1.
Output hinge_labels(Output t) {
  Output is01 = ops::add(ops::equal(t, ops::zeros_like(t)), ops::equal(t, ops::ones_like(t)));
  Output all01 = ops::sub(1.f, ops::reduce_max(ops::sub(1.f, is01)));  // 1 iff every label is 0 or 1
  return ops::add(t, ops::mul(all01, ops::sub(t, 1.f)));
}

Output l2_normalize(Output x, int axis) {
  Output norm = ops::sqrt(ops::reduce_sum(ops::square(x), {axis}, true));
  return ops::div(x, ops::maximum(norm, kEpsilon));
}

// x^gamma for x >= 0: repeated products for small integer gammas (exact, and a finite
// gradient at 0), else exp(gamma·log x).
Output power(Output x, double gamma) {
  if (gamma == 0.0) return ops::ones_like(x);
  if (gamma == std::floor(gamma) && gamma > 0 && gamma <= 8) {
    Output r = x;
    for (int i = 1; i < static_cast<int>(gamma); ++i) r = ops::mul(r, x);
    return r;
  }
  return ops::exp(ops::mul(ops::log(ops::maximum(x, 1e-30f)), static_cast<float>(gamma)));
}

std::string or_default(const std::string& name, const char* fallback) { return name.empty() ? fallback : name; }

}  // namespace

Output huber(Output y_true, Output y_pred, double delta) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  const float d = static_cast<float>(delta);
  Output error = ops::sub(p, t);
  Output abs_error = ops::abs(error);
  Output quadratic = ops::mul(ops::square(error), 0.5f);
  Output linear = ops::sub(ops::mul(abs_error, d), 0.5f * d * d);
  Output small = ops::less_equal(abs_error, ops::constant(*p.graph, d));
  return ops::reduce_mean(select(small, quadratic, linear), {-1});
}

Output log_cosh(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  Output diff = ops::sub(p, t);
  Output value = ops::sub(ops::add(diff, ops::softplus(ops::mul(diff, -2.f))), static_cast<float>(std::log(2.0)));
  return ops::reduce_mean(value, {-1});
}

Output kl_divergence(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  t = ops::clip(t, kEpsilon, 1.f);
  p = ops::clip(p, kEpsilon, 1.f);
  return ops::reduce_sum(ops::mul(t, ops::log(ops::div(t, p))), {-1});
}

Output poisson(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  return ops::reduce_mean(ops::sub(p, ops::mul(t, ops::log(ops::add(p, kEpsilon)))), {-1});
}

Output hinge(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  t = hinge_labels(t);
  return ops::reduce_mean(ops::maximum(ops::sub(1.f, ops::mul(t, p)), 0.f), {-1});
}

Output squared_hinge(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  t = hinge_labels(t);
  return ops::reduce_mean(ops::square(ops::maximum(ops::sub(1.f, ops::mul(t, p)), 0.f)), {-1});
}

Output categorical_hinge(Output y_true, Output y_pred) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  Output pos = ops::reduce_sum(ops::mul(t, p), {-1});
  Output neg = ops::reduce_max(ops::mul(ops::sub(1.f, t), p), {-1});
  return ops::maximum(ops::add(ops::sub(neg, pos), 1.f), 0.f);
}

Output cosine_similarity(Output y_true, Output y_pred, int axis) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  return ops::neg(ops::reduce_sum(ops::mul(l2_normalize(t, axis), l2_normalize(p, axis)), {axis}));
}

Output binary_focal_crossentropy(Output y_true, Output y_pred, bool apply_class_balancing, double alpha, double gamma,
                                 bool from_logits, double label_smoothing) {
  auto [t, p] = float32_of_same_rank(y_true, y_pred);
  if (label_smoothing != 0.0) {
    t = ops::add(ops::mul(t, static_cast<float>(1.0 - label_smoothing)), static_cast<float>(0.5 * label_smoothing));
  }
  if (from_logits) p = ops::sigmoid(p);
  Output pc = ops::clip(p, kEpsilon, static_cast<float>(1.0 - 1e-7));
  Output bce = ops::neg(ops::add(ops::mul(t, ops::log(pc)), ops::mul(ops::sub(1.f, t), ops::log(ops::sub(1.f, pc)))));
  Output p_t = ops::add(ops::mul(t, p), ops::mul(ops::sub(1.f, t), ops::sub(1.f, p)));
  Output focal = ops::mul(power(ops::sub(1.f, p_t), gamma), bce);
  if (apply_class_balancing) {
    const float a = static_cast<float>(alpha);
    focal = ops::mul(ops::add(ops::mul(t, a), ops::mul(ops::sub(1.f, t), 1.f - a)), focal);
  }
  return ops::reduce_mean(focal, {-1});
}

Huber::Huber(HuberOptions o)
    : Loss(from_function(o.name, [d = o.delta](Output t, Output p) { return huber(t, p, d); }, o.reduction)) {}
LogCosh::LogCosh(LossOptions o) : Loss(from_function(or_default(o.name, "log_cosh"), log_cosh, o.reduction)) {}
KLDivergence::KLDivergence(LossOptions o)
    : Loss(from_function(or_default(o.name, "kl_divergence"), kl_divergence, o.reduction)) {}
Poisson::Poisson(LossOptions o) : Loss(from_function(or_default(o.name, "poisson"), poisson, o.reduction)) {}
Hinge::Hinge(LossOptions o) : Loss(from_function(or_default(o.name, "hinge"), hinge, o.reduction)) {}
SquaredHinge::SquaredHinge(LossOptions o)
    : Loss(from_function(or_default(o.name, "squared_hinge"), squared_hinge, o.reduction)) {}
CategoricalHinge::CategoricalHinge(LossOptions o)
    : Loss(from_function(or_default(o.name, "categorical_hinge"), categorical_hinge, o.reduction)) {}
CosineSimilarity::CosineSimilarity(CosineSimilarityOptions o)
    : Loss(from_function(o.name, [a = o.axis](Output t, Output p) { return cosine_similarity(t, p, a); },
                         o.reduction)) {}
BinaryFocalCrossentropy::BinaryFocalCrossentropy(BinaryFocalCrossentropyOptions o)
    : Loss(from_function(
          o.name,
          [o](Output t, Output p) {
            return binary_focal_crossentropy(t, p, o.apply_class_balancing, o.alpha, o.gamma, o.from_logits,
                                             o.label_smoothing);
          },
          o.reduction)) {
  if (o.axis != -1) throw NotImplementedError("BinaryFocalCrossentropy: only axis = -1 is supported");
  if (o.label_smoothing < 0 || o.label_smoothing > 1) {
    throw ValueError("BinaryFocalCrossentropy: label_smoothing must be in [0, 1]");
  }
}

}  // namespace strata::losses
