#include "layers/regularization/activity_regularization.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

ActivityRegularizationImpl::ActivityRegularizationImpl(ActivityRegularizationOptions o)
    : LayerImpl("ActivityRegularization", o.name), options(std::move(o)) {
  supports_masking = true;  // as Keras's: it passes its input's mask on
  // Keras's L1L2 regularizer refuses negative factors (validate_float_arg).
  for (const auto& [key, value] : {std::pair{"l1", options.l1}, std::pair{"l2", options.l2}}) {
    if (!(value >= 0.0)) {
      throw ValueError(std::string("ActivityRegularization: ") + key + " must be >= 0, got " + std::to_string(value));
    }
  }
}

std::vector<Output> ActivityRegularizationImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  if (x.shape().rank() < 1) throw ShapeError("expects an input with a batch axis, got " + x.shape().to_string());
  if (options.l1 == 0.0 && options.l2 == 0.0) return {x};
  Output penalty;
  if (options.l1 != 0.0) penalty = ops::mul(ops::abs(x), static_cast<float>(options.l1));
  if (options.l2 != 0.0) {
    const Output l2 = ops::mul(ops::square(x), static_cast<float>(options.l2));
    penalty = penalty.valid() ? ops::add(penalty, l2) : l2;
  }
  // Keras divides the sum by the batch size: the mean over samples of each sample's sum.
  std::vector<std::int64_t> sample_axes;
  for (std::int64_t a = 1; a < x.shape().rank(); ++a) sample_axes.push_back(a);
  if (!sample_axes.empty()) penalty = ops::reduce_sum(penalty, sample_axes);
  graph.add_loss(ops::reduce_mean(penalty));
  return {x};
}

ActivityRegularization::ActivityRegularization(ActivityRegularizationOptions options)
    : Layer(std::make_shared<ActivityRegularizationImpl>(std::move(options))) {}

namespace {
const bool activity_regularization_registered = register_keras_class(
    describe_layer<ActivityRegularization>("ActivityRegularization", &ActivityRegularizationImpl::options));
}  // namespace

}  // namespace strata::layers
