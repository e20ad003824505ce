#include "io/layer_support.h"

#include <map>

#include "io/model_config.h"
#include "io/op_layer_config.h"
#include "layers/core/op_layer.h"
#include "layers/keras_class.h"

namespace strata::io {
namespace {

void walk(const json& entry, std::map<std::string, LayerClassSupport>& out) {
  if (!entry.is_object()) return;
  const std::string cls = entry.value("class_name", "?");
  const json config = entry.value("config", json());
  std::string name = cls;
  bool supported = false;
  if (cls == "TFOpLambda") {
    name = "TFOpLambda " + (config.is_object() ? config.value("function", "?") : "?");
    supported = tf_op_lambda_supported(config.is_object() ? config.value("function", "") : "");
  } else if (is_op_entry(entry)) {
    name = "op " + cls + " (" + entry.value("module", "keras.src.ops") + ")";
    supported = layers::is_supported_op(cls);
  } else {
    supported = is_model_class(cls) || layers::find_keras_class(cls) != nullptr;
  }
  auto& s = out[name];
  s.name = name;
  s.supported = supported;
  ++s.count;
  // Nested models (and Sequential's bare list), wrappers' inner layers and RNN cells.
  const json inner = config.is_array() ? config
                     : config.is_object() ? config.value("layers", json::array())
                                          : json::array();
  for (const auto& l : inner) walk(l, out);
  if (config.is_object()) {
    for (const char* key : {"layer", "forward_layer", "backward_layer", "cell"})
      if (config.contains(key)) walk(config[key], out);
  }
}

}  // namespace

std::vector<LayerClassSupport> layer_class_support(const json& model_config) {
  std::map<std::string, LayerClassSupport> found;
  const json config = model_config.value("config", json());
  const json layers = config.is_array() ? config
                      : config.is_object() ? config.value("layers", json::array())
                                           : json::array();
  for (const auto& l : layers) walk(l, found);
  std::vector<LayerClassSupport> out;
  for (auto& [name, s] : found) out.push_back(s);
  return out;
}

}  // namespace strata::io
