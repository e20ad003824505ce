// Model subclasses in .keras files, saved under their own class as Keras saves a registered
// keras.Model subclass with its own call (docs/extending.md, "The Model class"):
//
//   config.json: {"module": null, "class_name": "MLP", "registered_name": "my_package>MLP",
//                 "config": {"name", "trainable", "dtype", ...get_config()},
//                 "build_config": {"input_shape": [null, 3]}}
//   model.weights.h5: each layer under the attribute it was tracked as (hidden/vars/0), in
//                 Keras's walk: attributes in sorted order, `layers` (the tracked layers in
//                 tracking order, keyed by class: layers/dense_1) among them, each layer
//                 once, where the walk first reaches it; the model's own (empty) vars.
//
// Loading makes the model with the registered class's from_config, builds it on
// build_config's input shape, then reads the weights along the same walk. A class that is
// not registered is a ValueError naming it and how to register it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <typeindex>
#include <utility>
#include <vector>

#include "io/layer_config.h"
#include "models/custom_model.h"

namespace strata::io {

// Whether `model` is saved as a Model subclass: a CustomModel built from its own call
// whose C++ class is the one registered under its class name.
bool saved_as_subclass(const Model& model);
// Its config.json entry (without compile_config).
json subclass_model_config(const Model& model);
// The registered subclass an entry names (by registered_name, else class_name), made by
// its from_config and built; null when no model class of that name is registered.
std::optional<Model> subclass_model_from_config(const json& entry, const ConfigContext& ctx);

// The layers whose weights a .keras file keeps, with the path each is kept under, in
// Keras's walk (above).
std::vector<std::pair<std::string, Layer>> subclass_weight_paths(const CustomModel& model);

namespace detail {
bool register_custom_model(const std::string& package, const std::string& class_name, std::type_index type,
                           std::function<Model(const json&)> from_config);
}  // namespace detail

}  // namespace strata::io
