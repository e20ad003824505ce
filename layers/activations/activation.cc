#include "layers/activations/activation.h"

#include "layers/activations.h"
#include "layers/keras_class.h"

namespace strata::layers {

ActivationImpl::ActivationImpl(std::string activation_, ActivationOptions options)
    : LayerImpl("Activation", options.name), activation(std::move(activation_)), options(std::move(options)) {
  supports_masking = true;
  activations::validate(activation);
}

std::vector<Output> ActivationImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {activations::apply(activation, inputs[0])};
}

Activation::Activation(std::string activation, ActivationOptions options)
    : Layer(std::make_shared<ActivationImpl>(std::move(activation), std::move(options))) {}

namespace {
const bool activation_registered = register_keras_class(describe_layer<Activation>(
    "Activation", &ActivationImpl::options,
    keras_field("activation", &ActivationImpl::activation, Spelling::activation)));
}  // namespace

}  // namespace strata::layers
