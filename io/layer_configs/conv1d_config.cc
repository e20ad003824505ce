// Conv1D <-> Keras config: filters, kernel_size, strides, padding ("valid", "same",
// "causal"), data_format, dilation_rate, groups, activation, use_bias, initializers.
// Keras 2 writes the 1-tuples as one-element lists ("kernel_size": [2]); ints are
// accepted too. Regularizers and constraints are accepted and not applied.
#include "io/layer_configs/spatial_args.h"
#include "layers/conv1d.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::Conv1DImpl&>(impl);
  const auto& o = l.options;
  json out{{"filters", l.filters}, {"kernel_size", sp::window_to_json(l.kernel_size)}};
  sp::write_window(out, o);
  out["groups"] = o.groups;
  out["activation"] = activation_to_config(o.activation);
  out["use_bias"] = o.use_bias;
  out["kernel_initializer"] = initializer_to_config(o.kernel_initializer);
  out["bias_initializer"] = initializer_to_config(o.bias_initializer);
  sp::add_nulls(out, {"kernel_regularizer", "bias_regularizer", "activity_regularizer",
                      "kernel_constraint", "bias_constraint"});
  return out;
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("Conv1D", c);
  const std::int64_t filters = positive_int(c, "filters", where);
  const auto kernel = sp::ints(require_key(c, "kernel_size", where), 1, "kernel_size", where);
  layers::Conv1DOptions o;
  sp::read_conv_args(c, ctx, where, {"valid", "same", "causal"}, o);
  o.groups = sp::single(c, "groups", where, 1);
  o.kernel_initializer = sp::initializer(c, "kernel_initializer", where, o.kernel_initializer);
  return layers::Conv1D(filters, kernel[0], o);
}

const bool registered =
    register_layer_config({"Conv1D", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
