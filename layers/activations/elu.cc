#include "layers/activations/elu.h"

#include "layers/activations.h"

namespace strata::layers {

ELUImpl::ELUImpl(ELUOptions options_) : LayerImpl("ELU", options_.name), options(std::move(options_)) {
  supports_masking = true;
}

std::vector<Output> ELUImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {activations::elu(inputs[0], static_cast<float>(options.alpha))};
}

ELU::ELU(ELUOptions options) : Layer(std::make_shared<ELUImpl>(std::move(options))) {}

namespace {
const bool elu_registered = register_keras_class(describe_layer<ELU>("ELU", &ELUImpl::options));
}  // namespace

}  // namespace strata::layers
