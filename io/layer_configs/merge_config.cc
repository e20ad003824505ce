// Add, Subtract, Multiply, Average, Maximum, Minimum <-> Keras config: no keys of their
// own (name, trainable, dtype only), in Keras 2 and 3 alike.
#include "io/layer_config.h"
#include "layers/merge.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl&) { return json::object(); }

template <typename Merge>
LayerConfigEntry entry(const char* cls) {
  auto from = [](const json& c, const ConfigContext&) -> Layer {
    return Merge({.name = c.value("name", "")});
  };
  return {cls, "keras.layers", to_config, from, nullptr};
}

const bool registered = [] {
  register_layer_config(entry<layers::Add>("Add"));
  register_layer_config(entry<layers::Subtract>("Subtract"));
  register_layer_config(entry<layers::Multiply>("Multiply"));
  register_layer_config(entry<layers::Average>("Average"));
  register_layer_config(entry<layers::Maximum>("Maximum"));
  register_layer_config(entry<layers::Minimum>("Minimum"));
  return true;
}();

}  // namespace
}  // namespace strata::io
