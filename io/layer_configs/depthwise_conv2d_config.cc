// DepthwiseConv2D <-> Keras config: kernel_size, strides, padding, depth_multiplier,
// data_format, dilation_rate, activation, use_bias, depthwise/bias initializers.
// Regularizers and constraints are accepted and not applied.
#include "io/layer_configs/spatial_args.h"
#include "layers/depthwise_conv2d.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::DepthwiseConv2DImpl&>(impl);
  const auto& o = l.options;
  json out{{"kernel_size", sp::pair_to_json(l.kernel_size)},
           {"strides", sp::pair_to_json(o.strides)},
           {"padding", o.padding},
           {"depth_multiplier", o.depth_multiplier},
           {"data_format", sp::data_format_to_config(o.data_format)},
           {"dilation_rate", sp::pair_to_json(o.dilation_rate)},
           {"activation", activation_to_config(o.activation)},
           {"use_bias", o.use_bias},
           {"depthwise_initializer", initializer_to_config(o.depthwise_initializer)},
           {"bias_initializer", initializer_to_config(o.bias_initializer)}};
  sp::add_nulls(out, {"depthwise_regularizer", "bias_regularizer", "activity_regularizer",
                      "depthwise_constraint", "bias_constraint"});
  return out;
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("DepthwiseConv2D", c);
  const auto kernel = sp::ints(require_key(c, "kernel_size", where), 2, "kernel_size", where);
  layers::DepthwiseConv2DOptions o;
  sp::read_conv_args(c, ctx, where, {"valid", "same"}, o);
  o.depth_multiplier = sp::single(c, "depth_multiplier", where, 1);
  o.depthwise_initializer =
      sp::initializer(c, "depthwise_initializer", where, o.depthwise_initializer);
  return layers::DepthwiseConv2D({kernel[0], kernel[1]}, o);
}

const bool registered =
    register_layer_config({"DepthwiseConv2D", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
