#include "layers/activations/softmax.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/activations.h"

namespace strata::layers {

SoftmaxImpl::SoftmaxImpl(SoftmaxOptions options_)
    : LayerImpl("Softmax", options_.name), options(std::move(options_)) {}

std::vector<Output> SoftmaxImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  Output x = inputs[0];
  Output keep;
  if (inputs.size() == 2) {
    keep = ops::greater(inputs[1], ops::constant(graph, 0.5f));  // bool or float masks
    x = ops::add(x, ops::mul(ops::sub(ops::constant(graph, 1.0f), keep), -1e9f));
  }
  const Output y = activations::softmax_over(x, options.axis.values);
  return {keep.valid() ? ops::mul(y, keep) : y};
}

Softmax::Softmax(SoftmaxOptions options)
    : Layer(std::make_shared<SoftmaxImpl>(std::move(options))) {}

namespace {
const bool softmax_registered =
    register_keras_class(describe_layer<Softmax>("Softmax", &SoftmaxImpl::options));
}  // namespace

}  // namespace strata::layers
