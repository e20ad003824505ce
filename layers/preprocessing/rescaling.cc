#include "layers/preprocessing/rescaling.h"

#include "core/error.h"
#include "core/ops.h"

namespace strata::layers {

RescalingImpl::RescalingImpl(PerChannel scale_, RescalingOptions options_)
    : LayerImpl("Rescaling", options_.name), scale(std::move(scale_)), options(std::move(options_)) {
  if (scale.values.empty() || options.offset.values.empty())
    throw ValueError("Rescaling '" + name + "': scale and offset need at least one value");
  supports_masking = true;  // as Keras's: it passes its input's mask on
}

void RescalingImpl::build(const std::vector<TensorSpec>& inputs) {
  const Shape& in = inputs[0].shape;
  const std::int64_t channels = in.rank() ? in.dims().back() : 0;
  auto per_channel = [&](const PerChannel& v, const char* what) {
    if (v.single()) return Variable();
    if (channels != static_cast<std::int64_t>(v.values.size())) {
      throw ShapeError("Rescaling '" + name + "' has " + std::to_string(v.values.size()) + " " + what +
                       " values for input " + in.to_string() + " (one per channel, last axis)");
    }
    return Variable(name + "/" + what,
                    Tensor::from_vector(Shape{channels}, std::vector<float>(v.values.begin(), v.values.end())),
                    /*trainable=*/false);
  };
  channel_scale_ = per_channel(scale, "scale");
  channel_offset_ = per_channel(options.offset, "offset");
}

std::vector<Output> RescalingImpl::call(Graph& graph, const std::vector<Output>& inputs) {
  const Output scaled = scale.single() ? ops::mul(inputs[0], static_cast<float>(scale.values[0]))
                                       : ops::mul(inputs[0], graph.variable(channel_scale_));
  return {options.offset.single() ? ops::add(scaled, static_cast<float>(options.offset.values[0]))
                                  : ops::add(scaled, graph.variable(channel_offset_))};
}

Rescaling::Rescaling(PerChannel scale, RescalingOptions options)
    : Layer(std::make_shared<RescalingImpl>(std::move(scale), std::move(options))) {}

namespace {
const bool rescaling_registered = register_keras_class(describe_layer<Rescaling>(
    "Rescaling", &RescalingImpl::options,
    keras_field("scale", &RescalingImpl::scale, Spelling::bare_single)));
}  // namespace

}  // namespace strata::layers
