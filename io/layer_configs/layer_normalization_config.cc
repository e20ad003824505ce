// LayerNormalization <-> Keras config: axis (an int or a list), epsilon, center, scale,
// beta/gamma initializers. rms_scaling (Keras 3) is refused; regularizers and constraints
// are accepted and not applied.
#include "io/layer_configs/spatial_args.h"
#include "layers/layer_normalization.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& o = static_cast<const layers::LayerNormalizationImpl&>(impl).options;
  json axis = o.axis.size() == 1 ? json(o.axis[0]) : json(o.axis);
  json out{{"axis", axis},
           {"epsilon", o.epsilon},
           {"center", o.center},
           {"scale", o.scale},
           {"rms_scaling", false},
           {"beta_initializer", initializer_to_config(o.beta_initializer)},
           {"gamma_initializer", initializer_to_config(o.gamma_initializer)}};
  sp::add_nulls(out,
                {"beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"});
  return out;
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("LayerNormalization", c);
  if (c.value("rms_scaling", false))
    throw NotImplementedError(where + ": rms_scaling=True is not supported");
  layers::LayerNormalizationOptions o;
  o.name = c.value("name", "");
  if (c.contains("axis") && !c["axis"].is_null()) {
    const json& a = c["axis"];
    o.axis.clear();
    if (a.is_number_integer()) {
      o.axis.push_back(a.get<std::int64_t>());
    } else if (a.is_array() && !a.empty()) {
      for (const auto& e : a) {
        if (!e.is_number_integer()) throw ValueError(where + ": invalid axis " + a.dump());
        o.axis.push_back(e.get<std::int64_t>());
      }
    } else {
      throw ValueError(where + ": 'axis' must be an integer or a list of integers, got " +
                       a.dump());
    }
  }
  if (c.contains("epsilon") && c["epsilon"].is_number()) o.epsilon = c["epsilon"].get<double>();
  o.center = c.value("center", true);
  o.scale = c.value("scale", true);
  o.beta_initializer = sp::initializer(c, "beta_initializer", where, o.beta_initializer);
  o.gamma_initializer = sp::initializer(c, "gamma_initializer", where, o.gamma_initializer);
  return layers::LayerNormalization(o);
}

const bool registered =
    register_layer_config({"LayerNormalization", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
