// SeparableConv2D <-> Keras config: filters, kernel_size, strides, padding, data_format,
// dilation_rate, depth_multiplier, activation, use_bias, depthwise/pointwise/bias
// initializers. Weights in Keras's order (depthwise_kernel, pointwise_kernel, bias), all
// in the layer's own "vars" in a .keras file, so no vars hook. Regularizers and
// constraints are accepted and not applied.
#include "io/layer_configs/spatial_args.h"
#include "layers/separable_conv2d.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::SeparableConv2DImpl&>(impl);
  const auto& o = l.options;
  json out{{"filters", l.filters}, {"kernel_size", sp::pair_to_json(l.kernel_size)}};
  sp::write_window(out, o);
  out["depth_multiplier"] = o.depth_multiplier;
  out["activation"] = activation_to_config(o.activation);
  out["use_bias"] = o.use_bias;
  out["depthwise_initializer"] = initializer_to_config(o.depthwise_initializer);
  out["pointwise_initializer"] = initializer_to_config(o.pointwise_initializer);
  out["bias_initializer"] = initializer_to_config(o.bias_initializer);
  sp::add_nulls(out, {"depthwise_regularizer", "pointwise_regularizer", "bias_regularizer",
                      "activity_regularizer", "depthwise_constraint", "pointwise_constraint",
                      "bias_constraint"});
  return out;
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("SeparableConv2D", c);
  const std::int64_t filters = positive_int(c, "filters", where);
  const auto kernel = sp::ints(require_key(c, "kernel_size", where), 2, "kernel_size", where);
  layers::SeparableConv2DOptions o;
  sp::read_conv_args(c, ctx, where, {"valid", "same"}, o);
  o.depth_multiplier = sp::single(c, "depth_multiplier", where, 1);
  o.depthwise_initializer =
      sp::initializer(c, "depthwise_initializer", where, o.depthwise_initializer);
  o.pointwise_initializer =
      sp::initializer(c, "pointwise_initializer", where, o.pointwise_initializer);
  return layers::SeparableConv2D(filters, {kernel[0], kernel[1]}, o);
}

const bool registered =
    register_layer_config({"SeparableConv2D", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
