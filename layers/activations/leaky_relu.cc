#include "layers/activations/leaky_relu.h"

#include "core/error.h"
#include "layers/activations.h"

namespace strata::layers {

LeakyReLUImpl::LeakyReLUImpl(LeakyReLUOptions options_)
    : LayerImpl("LeakyReLU", options_.name), options(std::move(options_)) {
  supports_masking = true;
  if (options.negative_slope < 0)
    throw ValueError("LeakyReLU '" + name + "': negative_slope must be >= 0, got " +
                     std::to_string(options.negative_slope));
}

std::vector<Output> LeakyReLUImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {activations::leaky_relu(inputs[0], static_cast<float>(options.negative_slope))};
}

LeakyReLU::LeakyReLU(LeakyReLUOptions options)
    : Layer(std::make_shared<LeakyReLUImpl>(std::move(options))) {}

namespace {
const bool leaky_relu_registered =
    register_keras_class(describe_layer<LeakyReLU>("LeakyReLU", &LeakyReLUImpl::options));
}  // namespace

}  // namespace strata::layers
