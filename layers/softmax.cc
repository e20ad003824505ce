#include "layers/softmax.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

SoftmaxImpl::SoftmaxImpl(SoftmaxOptions options_)
    : LayerImpl("Softmax", options_.name), options(std::move(options_)) {}

std::vector<Output> SoftmaxImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output x = inputs[0];
  const auto rank = static_cast<std::int64_t>(x.shape().rank());
  if (options.axis < -rank || options.axis >= rank) {
    throw ValueError("axis " + std::to_string(options.axis) + " is out of range for input " +
                     x.shape().to_string());
  }
  return {ops::softmax(x, static_cast<int>(options.axis))};
}

Softmax::Softmax(SoftmaxOptions options)
    : Layer(std::make_shared<SoftmaxImpl>(std::move(options))) {}

namespace {
const bool registered =
    register_keras_class(describe_layer<Softmax>("Softmax", &SoftmaxImpl::options));
}  // namespace

}  // namespace strata::layers
