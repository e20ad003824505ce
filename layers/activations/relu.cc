#include "layers/activations/relu.h"

#include "core/error.h"
#include "core/ops.h"
#include "layers/activations.h"

namespace strata::layers {

ReLUImpl::ReLUImpl(ReLUOptions options_)
    : LayerImpl("ReLU", options_.name),
      options(std::move(options_)) {
  supports_masking = true;
  if (options.max_value && *options.max_value < 0)
    throw ValueError("ReLU '" + name + "': max_value must be >= 0, got " +
                     std::to_string(*options.max_value));
  if (options.threshold < 0)
    throw ValueError("ReLU '" + name + "': threshold must be >= 0, got " +
                     std::to_string(options.threshold));
  if (options.negative_slope < 0)
    throw ValueError("ReLU '" + name + "': negative_slope must be >= 0, got " +
                     std::to_string(options.negative_slope));
}

std::vector<Output> ReLUImpl::call(Graph&, const std::vector<Output>& inputs) {
  // Keras's order of operations (keras.layers.ReLU.static_call), so gradients at the
  // kinks are Keras's too.
  const Output x = inputs[0];
  const auto slope = static_cast<float>(options.negative_slope);
  const auto threshold = static_cast<float>(options.threshold);
  if (slope != 0.0f && !options.max_value && threshold == 0.0f)
    return {activations::leaky_relu(x, slope)};
  Output y;
  bool clip_max = options.max_value.has_value();
  if (threshold != 0.0f) {
    y = ops::mul(x, ops::greater(x, ops::constant(*x.graph, threshold)));
  } else if (options.max_value && *options.max_value == 6.0) {
    y = activations::relu6(x);
    clip_max = false;
  } else {
    y = ops::relu(x);
  }
  if (clip_max) y = ops::clip(y, 0.0f, static_cast<float>(*options.max_value));
  if (slope != 0.0f) {
    const Output negative_part = ops::relu(ops::add(ops::neg(x), threshold));
    y = ops::sub(y, ops::mul(negative_part, slope));
  }
  return {y};
}

ReLU::ReLU(ReLUOptions options) : Layer(std::make_shared<ReLUImpl>(std::move(options))) {}

namespace {
const bool relu_registered = register_keras_class(describe_layer<ReLU>("ReLU", &ReLUImpl::options));
}  // namespace

}  // namespace strata::layers
