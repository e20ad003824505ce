// Concatenate <-> Keras config: axis (default -1).
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/concatenate.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  return json{{"axis", static_cast<const layers::ConcatenateImpl&>(impl).axis}};
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Concatenate", c);
  int axis = -1;
  if (c.contains("axis") && !c["axis"].is_null()) {
    if (!c["axis"].is_number_integer())
      throw ValueError(where + ": 'axis' must be an integer, got " + c["axis"].dump());
    axis = c["axis"].get<int>();
  }
  return layers::Concatenate(axis, {.name = c.value("name", "")});
}

const bool registered =
    register_layer_config({"Concatenate", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
