// Keras's Pipeline: {"layers": [entries], "name"} and nothing else (Keras's
// Pipeline(layers, name) takes no trainable or dtype, and fails on them); each entry read
// and written through the registry. Its Keras 3 variables: each layer's groups under
// layers/<snake_case(class)>[_n]/, as Keras's saving walks a list of layers.
#include <map>

#include "core/error.h"
#include "io/layer_config.h"
#include "io/weights_h5.h"
#include "layers/keras_class.h"
#include "layers/preprocessing/pipeline.h"

namespace strata::io {
namespace {

const layers::PipelineImpl& pipeline(const LayerImpl& impl) { return static_cast<const layers::PipelineImpl&>(impl); }

json pipeline_to_config(const LayerImpl& impl) {
  json entries = json::array();
  for (const Layer& layer : pipeline(impl).layers) {
    const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
    entries.push_back(json{{"module", k ? k->module : "keras.layers"},
                           {"class_name", layer.class_name()},
                           {"config", layer_config(layer)},
                           {"registered_name", nullptr}});
  }
  return json{{"layers", entries}};
}

Layer pipeline_from_config(const json& config, const ConfigContext& ctx) {
  const std::string where = describe("Pipeline", config) + (ctx.source.empty() ? "" : " in " + ctx.source);
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    const bool float32 = key == "dtype" && (it.value().is_null() || it.value() == "float32");
    if (key != "layers" && key != "name" && key != "trainable" && !float32) {
      throw NotImplementedError(where + ": config key '" + key + "' = " + it.value().dump() +
                                " is not one Strata reads for this class");
    }
  }
  if (!config.contains("layers") || !config["layers"].is_array()) {
    throw ValueError(where + ": 'layers' must be a list of serialized layers, got " +
                     (config.contains("layers") ? config["layers"].dump() : std::string("none")));
  }
  std::vector<Layer> inner;
  for (const json& entry : config["layers"]) inner.push_back(layer_from_config(entry, ctx));
  return layers::Pipeline(std::move(inner), {.name = config.value("name", std::string())});
}

std::vector<VarGroup> pipeline_vars(const LayerImpl& impl) {
  std::vector<VarGroup> groups{{"vars", impl.weights}};
  std::map<std::string, int> used;
  for (const Layer& layer : pipeline(impl).layers) {
    std::string key = to_snake_case(layer.class_name());
    const int seen = used[key]++;
    if (seen > 0) key += "_" + std::to_string(seen);
    for (VarGroup group : keras3_var_groups(layer)) {
      group.path = "layers/" + key + "/" + group.path;
      groups.push_back(std::move(group));
    }
  }
  return groups;
}

const bool pipeline_config_registered = register_layer_config(
    {"Pipeline", "keras.layers", pipeline_to_config, pipeline_from_config, pipeline_vars, /*base_keys=*/false});

}  // namespace
}  // namespace strata::io
