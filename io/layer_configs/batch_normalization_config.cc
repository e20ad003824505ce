// BatchNormalization <-> Keras config: axis (an int, or tf.keras's one-element list such as
// [3]), momentum, epsilon, center and scale (which decide whether beta and gamma exist:
// the weights are [gamma,] [beta,] moving_mean, moving_variance, Keras's order), and the
// four initializers. Renormalization, virtual batches and `adjustment` are refused;
// regularizers and constraints are accepted and not applied.
#include "io/layer_configs/spatial_args.h"
#include "layers/batch_normalization.h"

namespace strata::io {
namespace {

namespace sp = spatial;

json to_config(const LayerImpl& impl) {
  const auto& o = static_cast<const layers::BatchNormalizationImpl&>(impl).options;
  json out{{"axis", o.axis},
           {"momentum", o.momentum},
           {"epsilon", o.epsilon},
           {"center", o.center},
           {"scale", o.scale},
           {"beta_initializer", initializer_to_config(o.beta_initializer)},
           {"gamma_initializer", initializer_to_config(o.gamma_initializer)},
           {"moving_mean_initializer", initializer_to_config(o.moving_mean_initializer)},
           {"moving_variance_initializer", initializer_to_config(o.moving_variance_initializer)}};
  sp::add_nulls(out,
                {"beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"});
  out["synchronized"] = false;
  return out;
}

int axis_from_config(const json& c, const std::string& where) {
  if (!c.contains("axis") || c["axis"].is_null()) return -1;
  const json& a = c["axis"];
  if (a.is_number_integer()) return a.get<int>();
  if (a.is_array() && a.size() == 1 && a[0].is_number_integer()) return a[0].get<int>();
  if (a.is_array() && a.size() > 1)
    throw NotImplementedError(where + ": normalizing over several axes " + a.dump() +
                              " is not supported (one channel axis only)");
  throw ValueError(where + ": 'axis' must be an integer or a list of one, got " + a.dump());
}

double number(const json& c, const char* key, double fallback, const std::string& where) {
  if (!c.contains(key) || c[key].is_null()) return fallback;
  if (!c[key].is_number())
    throw ValueError(where + ": '" + key + "' must be a number, got " + c[key].dump());
  return c[key].get<double>();
}

Layer from_config(const json& c, const ConfigContext&) {
  const std::string where = describe("BatchNormalization", c);
  if (c.value("renorm", false))
    throw NotImplementedError(where + ": batch renormalization (renorm=True) is not supported");
  sp::refuse_non_null(c, {"virtual_batch_size", "adjustment"}, where);
  layers::BatchNormalizationOptions o;
  o.name = c.value("name", "");
  o.axis = axis_from_config(c, where);
  o.momentum = number(c, "momentum", o.momentum, where);
  o.epsilon = number(c, "epsilon", o.epsilon, where);
  o.center = c.value("center", true);
  o.scale = c.value("scale", true);
  o.beta_initializer = sp::initializer(c, "beta_initializer", where, o.beta_initializer);
  o.gamma_initializer = sp::initializer(c, "gamma_initializer", where, o.gamma_initializer);
  o.moving_mean_initializer =
      sp::initializer(c, "moving_mean_initializer", where, o.moving_mean_initializer);
  o.moving_variance_initializer =
      sp::initializer(c, "moving_variance_initializer", where, o.moving_variance_initializer);
  return layers::BatchNormalization(o);
}

const bool registered =
    register_layer_config({"BatchNormalization", "keras.layers", to_config, from_config, nullptr});

}  // namespace
}  // namespace strata::io
