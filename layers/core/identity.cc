#include "layers/core/identity.h"

#include "core/ops.h"

namespace strata::layers {

IdentityImpl::IdentityImpl(IdentityOptions options_)
    : LayerImpl("Identity", options_.name), options(std::move(options_)) {
  supports_masking = true;
}

std::vector<Output> IdentityImpl::call(Graph&, const std::vector<Output>& inputs) {
  return {ops::identity(inputs[0])};
}

Identity::Identity(IdentityOptions options)
    : Layer(std::make_shared<IdentityImpl>(std::move(options))) {}

namespace {
const bool identity_registered =
    register_keras_class(describe_layer<Identity>("Identity", &IdentityImpl::options));
}  // namespace

}  // namespace strata::layers
