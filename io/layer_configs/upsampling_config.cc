// UpSampling1D/2D <-> Keras config: size (1-D an int; 2-D an int or a pair), data_format
// and interpolation (2-D; only "nearest", also Keras 2.0's default when absent).
#include "io/layer_configs/spatial_args.h"
#include "layers/upsampling.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::UpSamplingImpl&>(impl);
  if (l.spatial_rank == 1) return json{{"size", l.size.first}};
  return json{{"size", sp::pair_to_json(l.size)},
              {"data_format", sp::data_format_to_config(l.data_format)},
              {"interpolation", "nearest"}};
}

Layer upsampling_1d(const json& c, const ConfigContext&) {
  const std::string where = describe("UpSampling1D", c);
  return layers::UpSampling1D(sp::single(c, "size", where, 2), {.name = c.value("name", "")});
}

Layer upsampling_2d(const json& c, const ConfigContext&) {
  const std::string where = describe("UpSampling2D", c);
  layers::UpSampling2DOptions o;
  o.name = c.value("name", "");
  o.data_format = sp::data_format(c, where);
  if (c.contains("interpolation") && c["interpolation"].is_string()) {
    o.interpolation = c["interpolation"].get<std::string>();
    if (o.interpolation != "nearest")
      throw NotImplementedError(where + ": interpolation '" + o.interpolation +
                                "' is not supported (only 'nearest')");
  }
  return layers::UpSampling2D(sp::pair(c, "size", where, 2), o);
}

const bool registered = [] {
  register_layer_config({"UpSampling1D", "keras.layers", to_config, upsampling_1d, nullptr});
  register_layer_config({"UpSampling2D", "keras.layers", to_config, upsampling_2d, nullptr});
  return true;
}();

}  // namespace
}  // namespace strata::io
