// GlobalMax/GlobalAveragePooling1D/2D <-> Keras config: data_format, keepdims (Keras 3 and
// tf.keras >= 2.6; absent means false).
#include "io/layer_configs/spatial_args.h"
#include "layers/global_pooling.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& o = static_cast<const layers::GlobalPoolingImpl&>(impl).options;
  return json{{"data_format", sp::data_format_to_config(o.data_format)}, {"keepdims", o.keepdims}};
}

template <typename Pool>
LayerConfigEntry entry(const char* cls) {
  auto from = [cls](const json& c, const ConfigContext&) -> Layer {
    const std::string where = describe(cls, c);
    layers::GlobalPoolingOptions o;
    o.name = c.value("name", "");
    o.data_format = sp::data_format(c, where);
    if (c.contains("keepdims") && !c["keepdims"].is_null()) {
      if (!c["keepdims"].is_boolean())
        throw ValueError(where + ": 'keepdims' must be a boolean, got " + c["keepdims"].dump());
      o.keepdims = c["keepdims"].get<bool>();
    }
    return Pool(o);
  };
  return {cls, "keras.layers", to_config, from, nullptr};
}

const bool registered = [] {
  register_layer_config(entry<layers::GlobalMaxPooling1D>("GlobalMaxPooling1D"));
  register_layer_config(entry<layers::GlobalMaxPooling2D>("GlobalMaxPooling2D"));
  register_layer_config(entry<layers::GlobalAveragePooling1D>("GlobalAveragePooling1D"));
  register_layer_config(entry<layers::GlobalAveragePooling2D>("GlobalAveragePooling2D"));
  return true;
}();

}  // namespace
}  // namespace strata::io
