// SpatialDropout1D/2D <-> Keras config: rate, seed, data_format (2-D). tf.keras also
// writes noise_shape (always null for these layers).
#include "io/layer_configs/spatial_args.h"
#include "layers/spatial_dropout.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::SpatialDropoutImpl&>(impl);
  // Keras seeds are small integers; a drawn 64-bit seed is not written (Keras draws anew).
  json out{{"rate", l.rate}, {"seed", l.seed <= 0x7fffffffu ? json(l.seed) : json(nullptr)}};
  if (l.spatial_rank == 2) out["data_format"] = sp::data_format_to_config(l.data_format);
  return out;
}

template <typename Drop>
LayerConfigEntry entry(const char* cls, int rank) {
  auto from = [cls, rank](const json& c, const ConfigContext&) -> Layer {
    const std::string where = describe(cls, c);
    const json& rate = require_key(c, "rate", where);
    if (!rate.is_number())
      throw ValueError(where + ": 'rate' must be a number, got " + rate.dump());
    sp::refuse_non_null(c, {"noise_shape"}, where);
    layers::SpatialDropoutOptions o;
    o.name = c.value("name", "");
    if (rank == 2) o.data_format = sp::data_format(c, where);
    if (c.contains("seed") && c["seed"].is_number_integer())
      o.seed = c["seed"].get<std::uint64_t>();
    return Drop(rate.get<double>(), o);
  };
  return {cls, "keras.layers", to_config, from, nullptr};
}

const bool registered = [] {
  register_layer_config(entry<layers::SpatialDropout1D>("SpatialDropout1D", 1));
  register_layer_config(entry<layers::SpatialDropout2D>("SpatialDropout2D", 2));
  return true;
}();

}  // namespace
}  // namespace strata::io
