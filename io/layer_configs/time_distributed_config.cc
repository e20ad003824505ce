// TimeDistributed <-> Keras config: {"layer": <the inner layer's entry>}, read through the
// registry (any registered class); Keras 3 keeps the inner layer's variables under
// layers/<key>/layer/vars.
#include "core/error.h"
#include "io/layer_config.h"
#include "layers/time_distributed.h"

namespace strata::io {
namespace {

json time_distributed_to_config(const LayerImpl& impl) {
  const Layer& inner = static_cast<const layers::TimeDistributedImpl&>(impl).layer;
  const LayerConfigEntry* e = find_layer_config(inner.class_name());
  return json{{"layer", json{{"module", e ? e->module : "keras.layers"},
                             {"class_name", inner.class_name()},
                             {"config", layer_config(inner)},
                             {"registered_name", nullptr}}}};
}

Layer time_distributed_from_config(const json& c, const ConfigContext& ctx) {
  const std::string where = describe("TimeDistributed", c);
  Layer inner = layer_from_config(require_key(c, "layer", where), ctx);
  return layers::TimeDistributed(inner, {.name = c.value("name", "")});
}

std::vector<VarGroup> time_distributed_vars(const LayerImpl& impl) {
  std::vector<VarGroup> out;
  for (VarGroup g :
       keras3_var_groups(static_cast<const layers::TimeDistributedImpl&>(impl).layer)) {
    g.path = "layer/" + g.path;
    out.push_back(std::move(g));
  }
  return out;
}

const bool registered = register_layer_config({"TimeDistributed", "keras.layers",
                                               time_distributed_to_config,
                                               time_distributed_from_config, time_distributed_vars});

}  // namespace
}  // namespace strata::io
