#include "layers/activations/prelu.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

PReLUImpl::PReLUImpl(PReLUOptions options_)
    : LayerImpl("PReLU", options_.name), options(std::move(options_)) {
  supports_masking = true;
}

void PReLUImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& in = inputs[0].shape;
  std::vector<std::int64_t> dims(in.dims().begin() + 1, in.dims().end());
  for (std::int64_t axis : options.shared_axes.value_or(std::vector<std::int64_t>{})) {
    if (axis < 1 || axis >= in.rank()) {
      throw ValueError("PReLU '" + name + "': shared_axes entry " + std::to_string(axis) +
                       " is not an axis of input " + in.to_string() +
                       " (axis 0 is the batch; use 1.." + std::to_string(in.rank() - 1) + ")");
    }
    dims[static_cast<std::size_t>(axis - 1)] = 1;
  }
  for (std::int64_t d : dims) {
    if (d == kUnknownDim) {
      throw ShapeError("PReLU '" + name + "' needs known dimensions for alpha, got input " +
                       in.to_string() + "; share the unknown axes with shared_axes");
    }
  }
  alpha = add_weight("alpha", Shape(dims), options.alpha_initializer,
                     {.regularizer = options.alpha_regularizer, .constraint = options.alpha_constraint});
}

std::vector<Output> PReLUImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  // Keras: relu(x) - alpha * relu(-x).
  const Output x = inputs[0];
  const Output a = graph.variable(alpha);
  return {ops::sub(ops::relu(x), ops::mul(a, ops::relu(ops::neg(x))))};
}

PReLU::PReLU(PReLUOptions options) : Layer(std::make_shared<PReLUImpl>(std::move(options))) {}

namespace {
const bool prelu_registered = register_keras_class(
    describe_layer<PReLU>("PReLU", &PReLUImpl::options));
}  // namespace

}  // namespace strata::layers
