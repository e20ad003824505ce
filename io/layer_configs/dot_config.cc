// Dot <-> Keras config: axes (an int for both inputs or a pair, 1-based non-batch axes,
// negative from the end) and normalize.
#include "io/layer_configs/spatial_args.h"
#include "layers/dot.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  const auto& l = static_cast<const layers::DotImpl&>(impl);
  json axes = l.axes.first == l.axes.second ? json(l.axes.first) : spatial::pair_to_json(l.axes);
  return json{{"axes", axes}, {"normalize", l.normalize}};
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Dot", c);
  // Negative axes count from the end, so no lower bound here; the layer checks ranks.
  auto axes = spatial::ints(require_key(c, "axes", where), 2, "axes", where,
                            std::numeric_limits<std::int64_t>::min());
  return layers::Dot({axes[0], axes[1]},
                     {.normalize = c.value("normalize", false), .name = c.value("name", "")});
}

const bool registered =
    register_layer_config({"Dot", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
