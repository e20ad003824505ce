// Layer configs: how each Keras layer class turns into its JSON config and back. The
// classes are those of the one registry of layer classes, layers/keras_class.h: most
// layers describe their configs there, and io/keras_class_config.cc maps a description
// to JSON; a class that needs JSON of its own (a user's layer, the generic RNN, the CuDNN
// aliases in io/layer_configs/) registers a hand-written LayerConfigEntry into that same
// registry with register_layer_config. Nothing here names a concrete layer.
//
// A config passed to `from_config` is already normalized to the Keras 3 dialect:
// `dtype` is a plain string ("float32"), `batch_input_shape` is renamed `batch_shape`,
// and `ctx` says which Keras wrote the file (activations whose math changed between
// versions, e.g. hard_sigmoid, depend on it). `to_config` returns the Keras 3 config
// without name/trainable/dtype (the registry adds those) — or with them, they are kept.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "layers/layer.h"

namespace strata::layers {
struct KerasClass;
}  // namespace strata::layers

namespace strata::io {

using json = nlohmann::ordered_json;

// Who wrote the file being read.
struct ConfigContext {
  int keras_major = 3;  // 2 for Keras 2 / tf.keras files (hard_sigmoid is Keras 2's)
  std::string source;   // file name, for messages ("" for plain JSON)
};

// Where a layer's variables live in a Keras 3 `.weights.h5` file, relative to the
// layer's group `layers/<key>`: most layers keep all of them in "vars"; an RNN layer
// keeps them in "cell/vars", Bidirectional in "forward_layer/cell/vars" and
// "backward_layer/cell/vars".
struct VarGroup {
  std::string path;
  std::vector<Variable> variables;
};

// A class's JSON written by hand, registered as its entry in layers' registry (held as
// KerasClass::hand_written).
struct LayerConfigEntry {
  std::string class_name;
  std::string module = "keras.layers";  // Keras 3 "module" key ("" is written null)
  // Class-specific config keys (the registry adds name, trainable and dtype).
  std::function<json(const LayerImpl&)> to_config;
  // Makes an unbuilt layer from a normalized config.
  std::function<Layer(const json& config, const ConfigContext& ctx)> from_config;
  // Optional: the layer's Keras 3 variable groups; default {"vars", layer.weights}.
  std::function<std::vector<VarGroup>(const LayerImpl&)> keras3_vars;
  // Whether the config holds "trainable" and "dtype" (Keras's Pipeline takes neither).
  bool base_keys = true;
  // A user's class registered under a package: "package>ClassName", the name Keras's files
  // look it up by (saving::register_keras_serializable, io/custom_layer.h).
  std::string registered_name;
};

// Registers (or replaces) entry.class_name in the registry of layer classes
// (layers::register_keras_class). A class name already registered under another package
// is a ValueError naming both (files name the class by its registered name, saving by its
// class name: one class name, one registered name). Returns true, for use in a static initializer:
// `const bool registered = register_layer_config({...});`.
bool register_layer_config(LayerConfigEntry entry);
// The "package>ClassName" a user's class is registered under; "" for other classes.
std::string registered_name_of(const std::string& class_name);
// The user's class registered as "package>ClassName"; null when none is.
std::shared_ptr<const layers::KerasClass> find_registered_class(const std::string& registered_name);
// Sorted class names, for "supported layers: ..." messages (models included): the
// registry's classes and the model classes.
std::vector<std::string> registered_layer_classes();

// The NotImplementedError for a class nobody registered, naming the class and layer,
// listing what is supported and saying how to register it (under `registered_name`'s
// package when the file names one, "package>ClassName").
[[noreturn]] void throw_unsupported_layer(const std::string& class_name,
                                          const std::string& layer_name, const std::string& where,
                                          const std::string& registered_name = "");

// The full Keras 3 config object of a layer (not a model): name, trainable, dtype policy
// first, then the class's keys.
json layer_config(const Layer& layer);
// Builds an (unbuilt) layer from a config entry {"class_name", "config", ...} of either
// dialect. Throws NotImplementedError for classes not registered.
Layer layer_from_config(const json& entry, const ConfigContext& ctx);
// Keras 3's variable groups of a layer (see VarGroup).
std::vector<VarGroup> keras3_var_groups(const Layer& layer);

// Users' own layers. MyLayer must derive from Layer, be constructible from
// `(const nlohmann::ordered_json& config)` (the normalized config, name included), and may
// give `static nlohmann::ordered_json get_config(const LayerImpl&)` for saving.
template <typename MyLayer>
bool register_layer(const std::string& class_name, const std::string& module = "custom") {
  LayerConfigEntry e;
  e.class_name = class_name;
  e.module = module;
  e.from_config = [](const json& config, const ConfigContext&) -> Layer { return MyLayer(config); };
  if constexpr (requires(const LayerImpl& impl) { MyLayer::get_config(impl); }) {
    e.to_config = [](const LayerImpl& impl) -> json { return MyLayer::get_config(impl); };
  } else {
    e.to_config = [](const LayerImpl&) -> json { return json::object(); };
  }
  return register_layer_config(std::move(e));
}

// --- helpers for config units ---------------------------------------------------------

// Keras 3 initializer object {"module", "class_name", "config", "registered_name"}.
json initializer_to_config(const Initializer& init);
// Accepts a string identifier, a Keras 2 {"class_name", "config"} or a Keras 3 object.
Initializer initializer_from_config(const json& value, const std::string& where);
// "linear" for none; Keras 2's hard_sigmoid maps to hard_sigmoid_keras2.
std::string activation_to_config(const std::string& activation);
std::string activation_from_config(const json& value, const ConfigContext& ctx,
                                   const std::string& where);
// A required key, or ValueError naming the layer and the key.
const json& require_key(const json& config, const std::string& key, const std::string& where);
// config[key] as a positive integer (units, filters, ...); ValueError naming `where` otherwise.
std::int64_t positive_int(const json& config, const std::string& key, const std::string& where);
// Shape from a JSON list with nulls ([null, 8] -> (None, 8)).
Shape shape_from_json(const json& value, const std::string& where);
json shape_to_json(const Shape& shape);
// "Dense 'dense_1'" from a config, for messages.
std::string describe(const std::string& class_name, const json& config);

}  // namespace strata::io
