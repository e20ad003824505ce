// Flatten <-> Keras config (data_format; only channels_last is meaningful here).
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/flatten.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl&) { return json{{"data_format", "channels_last"}}; }

Layer from_config(const json& c, const ConfigContext&) {
  if (c.contains("data_format") && c["data_format"] == "channels_first") {
    throw NotImplementedError(describe("Flatten", c) +
                              ": data_format 'channels_first' is not supported");
  }
  return layers::Flatten({.name = c.value("name", "")});
}

const bool registered =
    register_layer_config({"Flatten", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
