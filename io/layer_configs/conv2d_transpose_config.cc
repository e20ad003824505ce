// Conv2DTranspose <-> Keras config: as Conv2D without groups; output_padding must be
// null (not supported by the layer). Regularizers and constraints are accepted and not
// applied.
#include "io/layer_configs/spatial_args.h"
#include "layers/conv2d_transpose.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::Conv2DTransposeImpl&>(impl);
  const auto& o = l.options;
  json out{{"filters", l.filters}, {"kernel_size", sp::pair_to_json(l.kernel_size)}};
  sp::write_window(out, o);
  out["output_padding"] = nullptr;
  out["activation"] = activation_to_config(o.activation);
  out["use_bias"] = o.use_bias;
  out["kernel_initializer"] = initializer_to_config(o.kernel_initializer);
  out["bias_initializer"] = initializer_to_config(o.bias_initializer);
  sp::add_nulls(out, {"kernel_regularizer", "bias_regularizer", "activity_regularizer",
                      "kernel_constraint", "bias_constraint"});
  return out;
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("Conv2DTranspose", c);
  const std::int64_t filters = positive_int(c, "filters", where);
  const auto kernel = sp::ints(require_key(c, "kernel_size", where), 2, "kernel_size", where);
  sp::refuse_non_null(c, {"output_padding"}, where);
  if (sp::single(c, "groups", where, 1) != 1)
    throw NotImplementedError(where + ": groups other than 1 are not supported");
  layers::Conv2DTransposeOptions o;
  sp::read_conv_args(c, ctx, where, {"valid", "same"}, o);
  o.kernel_initializer = sp::initializer(c, "kernel_initializer", where, o.kernel_initializer);
  return layers::Conv2DTranspose(filters, {kernel[0], kernel[1]}, o);
}

const bool registered =
    register_layer_config({"Conv2DTranspose", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
