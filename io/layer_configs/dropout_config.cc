// Dropout <-> Keras config (rate, seed, noise_shape).
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/dropout.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  const auto& d = static_cast<const layers::DropoutImpl&>(impl);
  // Keras seeds are small integers; a drawn 64-bit seed is not written (Keras draws anew).
  json seed = d.seed <= 0x7fffffffu ? json(d.seed) : json(nullptr);
  return json{{"rate", d.rate}, {"seed", seed}, {"noise_shape", nullptr}};
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Dropout", c);
  const json& rate = require_key(c, "rate", where);
  if (!rate.is_number()) throw ValueError(where + ": 'rate' must be a number, got " + rate.dump());
  if (c.contains("noise_shape") && !c["noise_shape"].is_null()) {
    throw NotImplementedError(where + ": noise_shape " + c["noise_shape"].dump() +
                              " is not supported");
  }
  layers::DropoutOptions o;
  o.name = c.value("name", "");
  if (c.contains("seed") && c["seed"].is_number_integer()) o.seed = c["seed"].get<std::uint64_t>();
  return layers::Dropout(rate.get<double>(), o);
}

const bool registered =
    register_layer_config({"Dropout", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
