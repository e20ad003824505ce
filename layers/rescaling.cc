#include "layers/rescaling.h"

#include "core/ops.h"

namespace strata::layers {

RescalingImpl::RescalingImpl(double scale_, RescalingOptions options_)
    : LayerImpl("Rescaling", options_.name), scale(scale_), options(std::move(options_)) {}

std::vector<Output> RescalingImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {ops::add(ops::mul(inputs[0], static_cast<float>(scale)), static_cast<float>(options.offset))};
}

Rescaling::Rescaling(double scale, RescalingOptions options)
    : Layer(std::make_shared<RescalingImpl>(scale, std::move(options))) {}

namespace {
const bool registered = register_keras_class(describe_layer<Rescaling>(
    "Rescaling", &RescalingImpl::options, keras_field("scale", &RescalingImpl::scale)));
}  // namespace

}  // namespace strata::layers
