// Dense <-> Keras config (units, activation, use_bias, initializers). Regularizers and
// constraints only shape training; a file's non-null ones are accepted and not applied.
#include "io/layer_config.h"
#include "layers/dense.h"

namespace strata::io {
namespace {

json to_config(const LayerImpl& impl) {
  const auto& d = static_cast<const layers::DenseImpl&>(impl);
  return json{{"units", d.units},
              {"activation", activation_to_config(d.options.activation)},
              {"use_bias", d.options.use_bias},
              {"kernel_initializer", initializer_to_config(d.options.kernel_initializer)},
              {"bias_initializer", initializer_to_config(d.options.bias_initializer)},
              {"kernel_regularizer", nullptr},
              {"bias_regularizer", nullptr},
              {"kernel_constraint", nullptr},
              {"bias_constraint", nullptr}};
}

Layer from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("Dense", c);
  layers::DenseOptions o;
  o.name = c.value("name", "");
  o.activation = activation_from_config(c.value("activation", json()), ctx, where);
  o.use_bias = c.value("use_bias", true);
  if (c.contains("kernel_initializer"))
    o.kernel_initializer = initializer_from_config(c["kernel_initializer"], where);
  if (c.contains("bias_initializer"))
    o.bias_initializer = initializer_from_config(c["bias_initializer"], where);
  const json& units = require_key(c, "units", where);
  if (!units.is_number_integer())
    throw ValueError(where + ": 'units' must be an integer, got " + units.dump());
  return layers::Dense(units.get<std::int64_t>(), o);
}

const bool registered =
    register_layer_config({"Dense", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
