#include "layers/normalization/unit_normalization.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

namespace {
// Keras's epsilon for the norm: the inverse norm is capped at 1 / 1e-12.
constexpr float kLargestInverseNorm = 1e12f;
}  // namespace

UnitNormalizationImpl::UnitNormalizationImpl(UnitNormalizationOptions o)
    : LayerImpl("UnitNormalization", o.name), options(std::move(o)) {
  supports_masking = true;  // as Keras's: it passes its input's mask on
  if (options.axis.empty()) throw ValueError("UnitNormalization: axis must name at least one axis");
}

std::vector<Output> UnitNormalizationImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  std::vector<std::int64_t> axes;
  for (auto a : options.axis) {
    const int axis = x.shape().normalize_axis(static_cast<int>(a));
    if (axis == 0) throw ValueError("UnitNormalization cannot normalize over the batch axis");
    axes.push_back(axis);
  }
  Output inverse_norm = ops::div(1.f, ops::sqrt(ops::reduce_sum(ops::square(x), axes, true)));
  return {ops::mul(x, ops::minimum(inverse_norm, kLargestInverseNorm))};
}

UnitNormalization::UnitNormalization(UnitNormalizationOptions options)
    : Layer(std::make_shared<UnitNormalizationImpl>(std::move(options))) {}

namespace {
const bool unit_normalization_registered = register_keras_class(
    describe_layer<UnitNormalization>("UnitNormalization", &UnitNormalizationImpl::options));
}  // namespace

}  // namespace strata::layers
