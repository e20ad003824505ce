#include "layers/activation.h"

#include "layers/activations.h"

namespace strata::layers {

ActivationImpl::ActivationImpl(std::string activation_, ActivationOptions options)
    : LayerImpl("Activation", options.name), activation(std::move(activation_)) {
  activations::validate(activation);
}

std::vector<Output> ActivationImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {activations::apply(activation, inputs[0])};
}

Activation::Activation(std::string activation, ActivationOptions options)
    : Layer(std::make_shared<ActivationImpl>(std::move(activation), std::move(options))) {}

}  // namespace strata::layers
