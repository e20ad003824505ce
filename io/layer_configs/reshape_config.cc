// Reshape <-> Keras config (target_shape, batch excluded, may hold one -1).
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/reshape.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  json dims = json::array();
  for (auto d : static_cast<const layers::ReshapeImpl&>(impl).target_shape.dims())
    dims.push_back(d);
  return json{{"target_shape", dims}};
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Reshape", c);
  const json& t = require_key(c, "target_shape", where);
  if (!t.is_array()) throw ValueError(where + ": 'target_shape' must be a list, got " + t.dump());
  std::vector<std::int64_t> dims;
  for (const auto& d : t) {
    if (!d.is_number_integer()) throw ValueError(where + ": invalid target_shape " + t.dump());
    dims.push_back(d.get<std::int64_t>());
  }
  return layers::Reshape(Shape(dims), {.name = c.value("name", "")});
}

const bool registered =
    register_layer_config({"Reshape", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
