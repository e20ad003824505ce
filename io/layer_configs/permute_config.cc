// Permute <-> Keras config: dims, 1-based non-batch axes ([2, 1] swaps them).
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/permute.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  return json{{"dims", static_cast<const layers::PermuteImpl&>(impl).dims}};
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("Permute", c);
  const json& d = require_key(c, "dims", where);
  std::vector<std::int64_t> dims;
  if (d.is_array()) {
    for (const auto& e : d) {
      if (!e.is_number_integer()) break;
      dims.push_back(e.get<std::int64_t>());
    }
  }
  if (!d.is_array() || dims.size() != d.size() || dims.empty())
    throw ValueError(where + ": 'dims' must be a list of integers, got " + d.dump());
  return layers::Permute(dims, {.name = c.value("name", "")});
}

const bool registered =
    register_layer_config({"Permute", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
