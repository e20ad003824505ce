#include "losses/crossentropy.h"

#include "core/ops.h"
#include "losses/loss_utils.h"

namespace strata::losses {

namespace {

constexpr float kOneMinusEpsilon = static_cast<float>(1.0 - 1e-7);  // Python's 1.0 - epsilon()

Output clip_probabilities(Output p) { return ops::clip(p, kEpsilon, kOneMinusEpsilon); }

void check_label_smoothing(const char* loss, double ls) {
  if (ls < 0.0 || ls > 1.0) {
    throw ValueError(std::string(loss) + ": label_smoothing must be in [0, 1], got " + std::to_string(ls));
  }
}

template <typename Options>
class CrossentropyLoss : public LossImpl {
 public:
  using Fn = Output (*)(Output, Output, const Options&);
  CrossentropyLoss(Options o, Fn fn, bool sparse = false) : options(std::move(o)), fn_(fn), sparse_(sparse) {
    reduction = parse_reduction(options.reduction);
  }
  Output per_sample(Output y_true, Output y_pred) const override { return fn_(y_true, y_pred, options); }
  std::string name() const override { return options.name; }
  bool sparse_targets() const override { return sparse_; }
  Options options;

 private:
  Fn fn_;
  bool sparse_;
};

}  // namespace

Output binary_crossentropy(Output y_true, Output y_pred, bool from_logits, double label_smoothing, int axis) {
  check_label_smoothing("binary_crossentropy", label_smoothing);
  auto [y, p] = float32_of_same_rank(y_true, y_pred);
  if (label_smoothing != 0.0) {
    y = ops::add(ops::mul(y, static_cast<float>(1.0 - label_smoothing)), static_cast<float>(0.5 * label_smoothing));
  }
  Output elementwise;
  if (from_logits) {
    // −y·log σ(z) − (1−y)·log σ(−z) = softplus(z) − y·z, stable for any z.
    elementwise = ops::sub(ops::softplus(p), ops::mul(y, p));
  } else {
    p = clip_probabilities(p);
    Output bce = ops::add(ops::mul(y, ops::log(p)), ops::mul(ops::sub(1.f, y), ops::log(ops::sub(1.f, p))));
    elementwise = ops::neg(bce);
  }
  return ops::reduce_mean(elementwise, {axis});
}

Output categorical_crossentropy(Output y_true, Output y_pred, bool from_logits, double label_smoothing, int axis) {
  check_label_smoothing("categorical_crossentropy", label_smoothing);
  auto [y, p] = float32_of_same_rank(y_true, y_pred);
  if (!y.shape().is_compatible_with(p.shape())) {
    throw ShapeError("categorical_crossentropy: y_true of shape " + y.shape().to_string() +
                     " must have the shape of y_pred " + p.shape().to_string() +
                     " (one-hot labels; for integer labels use sparse_categorical_crossentropy)");
  }
  if (p.shape().rank() < 1) throw ShapeError("categorical_crossentropy: y_pred must have rank >= 1");
  if (label_smoothing != 0.0) {
    std::int64_t classes = p.shape().dims().back();
    if (classes == kUnknownDim) throw ShapeError("categorical_crossentropy: label_smoothing needs a known class count");
    y = ops::add(ops::mul(y, static_cast<float>(1.0 - label_smoothing)),
                 static_cast<float>(label_smoothing / static_cast<double>(classes)));
  }
  Output log_prob;
  if (from_logits) {
    log_prob = ops::log_softmax(p, axis);
  } else {
    p = ops::div(p, ops::reduce_sum(p, {axis}, true));
    log_prob = ops::log(clip_probabilities(p));
  }
  return ops::neg(ops::reduce_sum(ops::mul(y, log_prob), {axis}));
}

Output sparse_categorical_crossentropy(Output y_true, Output y_pred, bool from_logits) {
  Output p = ops::cast(y_pred, DType::float32);
  Output labels = y_true;
  std::tie(labels, p) = squeeze_or_expand_to_same_rank(labels, p);
  if (p.shape().rank() < 1) throw ShapeError("sparse_categorical_crossentropy: y_pred must have rank >= 1");
  if (labels.shape().rank() == p.shape().rank()) {
    if (labels.shape().dims().back() != 1) {
      throw ShapeError("sparse_categorical_crossentropy: labels of shape " + labels.shape().to_string() +
                       " for predictions of shape " + p.shape().to_string() +
                       " (expected class indices of shape (batch,) or (batch, 1); for one-hot labels use "
                       "categorical_crossentropy)");
    }
    labels = squeeze_last(labels);
  }
  if (from_logits) return ops::neg(ops::pick(ops::log_softmax(p, -1), labels));
  p = ops::div(p, ops::reduce_sum(p, {-1}, true));
  // Picking before the log gives the same value as −Σ one_hot·log(clip(p)).
  return ops::neg(ops::log(clip_probabilities(ops::pick(p, labels))));
}

BinaryCrossentropy::BinaryCrossentropy(BinaryCrossentropyOptions options)
    : Loss(std::make_shared<CrossentropyLoss<BinaryCrossentropyOptions>>(
          std::move(options), [](Output t, Output p, const BinaryCrossentropyOptions& o) {
            return binary_crossentropy(t, p, o.from_logits, o.label_smoothing, o.axis);
          })) {
  check_label_smoothing("BinaryCrossentropy", this->options().label_smoothing);
}

const BinaryCrossentropyOptions& BinaryCrossentropy::options() const {
  return static_cast<const CrossentropyLoss<BinaryCrossentropyOptions>&>(impl()).options;
}

CategoricalCrossentropy::CategoricalCrossentropy(CategoricalCrossentropyOptions options)
    : Loss(std::make_shared<CrossentropyLoss<CategoricalCrossentropyOptions>>(
          std::move(options), [](Output t, Output p, const CategoricalCrossentropyOptions& o) {
            return categorical_crossentropy(t, p, o.from_logits, o.label_smoothing, o.axis);
          })) {
  check_label_smoothing("CategoricalCrossentropy", this->options().label_smoothing);
}

const CategoricalCrossentropyOptions& CategoricalCrossentropy::options() const {
  return static_cast<const CrossentropyLoss<CategoricalCrossentropyOptions>&>(impl()).options;
}

SparseCategoricalCrossentropy::SparseCategoricalCrossentropy(SparseCategoricalCrossentropyOptions options)
    : Loss(std::make_shared<CrossentropyLoss<SparseCategoricalCrossentropyOptions>>(
          std::move(options), [](Output t, Output p, const SparseCategoricalCrossentropyOptions& o) {
            return sparse_categorical_crossentropy(t, p, o.from_logits);
          },
          /*sparse=*/true)) {}

const SparseCategoricalCrossentropyOptions& SparseCategoricalCrossentropy::options() const {
  return static_cast<const CrossentropyLoss<SparseCategoricalCrossentropyOptions>&>(impl()).options;
}

}  // namespace strata::losses
