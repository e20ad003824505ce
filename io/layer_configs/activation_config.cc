// Activation layer <-> Keras config.
#include "io/layer_config.h"
#include "layers/activation.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  return json{{"activation",
               activation_to_config(static_cast<const layers::ActivationImpl&>(impl).activation)}};
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("Activation", c);
  std::string act = activation_from_config(require_key(c, "activation", where), ctx, where);
  return layers::Activation(act.empty() ? "linear" : act, {.name = c.value("name", "")});
}

const bool registered =
    register_layer_config({"Activation", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
