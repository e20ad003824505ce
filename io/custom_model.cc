#include "io/custom_model.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <typeinfo>

#include "core/error.h"
#include "io/weights_h5.h"

namespace strata::io {

namespace {

struct ModelClass {
  std::string class_name, registered_name;
  std::type_index type;  // the C++ class: another class may give CustomModel the same name
  std::function<Model(const json&)> from_config;
};

// The registered Model subclasses, by registered name ("my_package>MLP"), and each class
// name's registered name.
struct ModelClasses {
  std::mutex mu;
  std::map<std::string, ModelClass> by_registered_name;
  std::map<std::string, std::string> registered_name_of;
};

ModelClasses& model_classes() {
  static ModelClasses classes;
  return classes;
}

// By the registered name a file gives ("my_package>MLP": that class only, as Keras finds
// it); by class name when it gives none.
std::optional<ModelClass> find_model_class(const std::string& registered_name, const std::string& class_name) {
  ModelClasses& classes = model_classes();
  std::lock_guard lock(classes.mu);
  std::string key = registered_name;
  if (key.find('>') == std::string::npos) {
    const auto named = classes.registered_name_of.find(class_name);
    if (named == classes.registered_name_of.end()) return std::nullopt;
    key = named->second;
  }
  const auto it = classes.by_registered_name.find(key);
  if (it == classes.by_registered_name.end()) return std::nullopt;
  return it->second;
}

const CustomModel* as_custom_model(const Model& model) { return dynamic_cast<const CustomModel*>(&model.model()); }

// Keras's build_config input_shape: one shape for one input, a list of them for several;
// the batch dimension as null.
json input_shapes_json(const ModelImpl& m) {
  auto shape_json = [](const KerasTensor& t) {
    json dims = json::array();
    for (std::int64_t d : t.shape().dims()) dims.push_back(d < 0 ? json(nullptr) : json(d));
    return dims;
  };
  if (m.inputs.size() == 1) return shape_json(m.inputs[0]);
  json all = json::array();
  for (const auto& t : m.inputs) all.push_back(shape_json(t));
  return all;
}

// build_config's input_shape as per-example shapes (the batch dimension dropped).
std::vector<Shape> per_example_shapes(const json& input_shape, const std::string& where) {
  if (!input_shape.is_array() || input_shape.empty()) {
    throw ValueError(where + ": build_config's input_shape is not a shape: " + input_shape.dump());
  }
  const bool several = std::all_of(input_shape.begin(), input_shape.end(), [](const json& v) { return v.is_array(); });
  if (!several && std::any_of(input_shape.begin(), input_shape.end(), [](const json& v) { return v.is_array(); })) {
    throw ValueError(where + ": build_config's input_shape mixes shapes and dimensions: " + input_shape.dump());
  }
  std::vector<Shape> shapes;
  for (const json& one : several ? input_shape : json::array({input_shape})) {
    if (!one.is_array() || one.empty()) {
      throw ValueError(where + ": input shape " + one.dump() + " has no batch dimension");
    }
    std::vector<std::int64_t> dims;
    for (std::size_t i = 1; i < one.size(); ++i) {
      if (!one[i].is_null() && !one[i].is_number_integer()) {
        throw ValueError(where + ": input shape " + one.dump() + " holds " + one[i].dump());
      }
      dims.push_back(one[i].is_null() ? kUnknownDim : one[i].get<std::int64_t>());
    }
    shapes.emplace_back(dims);
  }
  return shapes;
}

}  // namespace

namespace detail {

bool register_custom_model(const std::string& package, const std::string& class_name, std::type_index type,
                           std::function<Model(const json&)> from_config) {
  if (package.empty() || package.find('>') != std::string::npos) {
    throw ValueError("register_keras_serializable<" + class_name +
                     ">: the package must be non-empty and without '>', got '" + package + "'");
  }
  if (class_name.empty() || class_name.find('>') != std::string::npos) {
    throw ValueError("register_keras_serializable: '" + class_name + "' cannot name a class");
  }
  const std::string registered = package + ">" + class_name;
  ModelClasses& classes = model_classes();
  std::lock_guard lock(classes.mu);
  const auto named = classes.registered_name_of.find(class_name);
  if (named != classes.registered_name_of.end() && named->second != registered) {
    throw ValueError("register_keras_serializable: the model class '" + class_name + "' is registered as '" +
                     named->second + "' already; one class name under two packages would make files ambiguous");
  }
  const auto same = classes.by_registered_name.find(registered);
  if (same != classes.by_registered_name.end() && same->second.type != type) {
    throw ValueError("register_keras_serializable: '" + registered +
                     "' is registered already for another C++ class; which one a file loads as would depend on "
                     "the order of static initialization");
  }
  classes.registered_name_of[class_name] = registered;
  classes.by_registered_name.insert_or_assign(registered,
                                              ModelClass{class_name, registered, type, std::move(from_config)});
  return true;
}

}  // namespace detail

bool saved_as_subclass(const Model& model) {
  const CustomModel* custom = as_custom_model(model);
  if (!custom || !custom->built_from_own_call()) return false;
  const std::optional<ModelClass> k = find_model_class("", custom->class_name());
  return k && k->type == std::type_index(typeid(*custom));
}

json subclass_model_config(const Model& model) {
  if (!saved_as_subclass(model)) {
    throw ValueError("model '" + model.name() + "' is not a registered Model subclass built from its own call");
  }
  const CustomModel& m = *as_custom_model(model);
  const std::optional<ModelClass> k = find_model_class("", m.class_name());
  json config{{"name", m.name},
              {"trainable", m.trainable},
              {"dtype", json{{"module", "keras"},
                             {"class_name", "DTypePolicy"},
                             {"config", json{{"name", "float32"}}},
                             {"registered_name", nullptr}}}};
  const json own = m.get_config();
  if (!own.is_object()) {
    throw ValueError(m.class_name() + " '" + m.name + "': get_config() must give a JSON object, got " + own.dump());
  }
  for (auto it = own.begin(); it != own.end(); ++it) config[it.key()] = it.value();
  return json{{"module", nullptr},
              {"class_name", m.class_name()},
              {"config", config},
              {"registered_name", k->registered_name},
              {"build_config", json{{"input_shape", input_shapes_json(m)}}}};
}

std::optional<Model> subclass_model_from_config(const json& entry, const ConfigContext& ctx) {
  const std::string cls = entry.value("class_name", std::string());
  const std::string registered = entry.contains("registered_name") && entry["registered_name"].is_string()
                                     ? entry["registered_name"].get<std::string>()
                                     : std::string();
  const std::optional<ModelClass> k = find_model_class(registered, cls);
  if (!k) return std::nullopt;
  const std::string where =
      "model class '" + k->registered_name + "'" + (ctx.source.empty() ? "" : " in '" + ctx.source + "'");
  const json config = entry.contains("config") && entry["config"].is_object() ? entry["config"] : json::object();
  auto make = [&]() -> Model {
    try {
      return k->from_config(config);
    } catch (const Error&) {
      throw;
    } catch (const std::exception& e) {  // the user's from_config: a key missing from the config, ...
      throw ValueError(where + ": from_config failed on " + config.dump() + ": " + e.what());
    }
  };
  Model model = make();
  const CustomModel* custom = model.defined() ? as_custom_model(model) : nullptr;
  if (!custom || std::type_index(typeid(*custom)) != k->type || custom->class_name() != k->class_name) {
    throw ValueError(where + ": from_config made " +
                     (model.defined() ? "a model of class '" + model.model().class_name() + "'" : "no model") +
                     ", not one of the class registered (whose class name given to CustomModel must be '" +
                     k->class_name + "')");
  }
  auto& made = dynamic_cast<CustomModel&>(model.model());
  if (config.contains("trainable") && config["trainable"].is_boolean()) {
    made.trainable = config["trainable"].get<bool>();
  }
  if (made.inputs.empty()) {
    if (!entry.contains("build_config") || !entry["build_config"].is_object() ||
        !entry["build_config"].contains("input_shape")) {
      throw ValueError(where + ": the config has no build_config input_shape to build the model on (Keras writes "
                       "one for a model that was built; a model with several call arguments gives shapes_dict, "
                       "which is not read yet)");
    }
    made.build(per_example_shapes(entry["build_config"]["input_shape"], where));
  }
  if (!made.built_from_own_call()) {
    throw ValueError(where + ": from_config made a model from inputs and outputs; a registered Model subclass "
                     "is made without them and built from its own call()");
  }
  return model;
}

std::vector<std::pair<std::string, Layer>> subclass_weight_paths(const CustomModel& model) {
  const std::vector<Layer>& tracked = model.tracked_layers();
  const std::vector<std::string>& attributes = model.tracked_attributes();
  // Keras walks the object's attributes in sorted order; `layers` is one of them: the
  // tracked layers in tracking order, keyed by class as a container's layers are.
  std::vector<std::string> walk = attributes;
  walk.push_back("layers");
  // Keras's order (saving_lib's _name_key): names starting with '_' after all others.
  auto key = [](const std::string& a) { return a.starts_with("_") ? "~" + a : a; };
  std::sort(walk.begin(), walk.end(), [&](const std::string& a, const std::string& b) { return key(a) < key(b); });
  std::vector<LayerWeights> as_listed;
  for (const auto& l : tracked) as_listed.push_back({l.name(), {}, l.class_name()});
  const std::vector<std::string> keys = keras3_layer_keys(as_listed);
  std::set<const LayerImpl*> visited;
  std::vector<std::pair<std::string, Layer>> paths;
  auto visit = [&](const std::string& path, const Layer& layer) {
    if (visited.insert(&layer.impl()).second) paths.emplace_back(path, layer);
  };
  for (const std::string& attribute : walk) {
    if (attribute == "layers") {  // track() refuses it as an attribute's name
      for (std::size_t i = 0; i < tracked.size(); ++i) visit("layers/" + keys[i], tracked[i]);
      continue;
    }
    const auto at = std::find(attributes.begin(), attributes.end(), attribute);
    visit(attribute, tracked[static_cast<std::size_t>(at - attributes.begin())]);
  }
  return paths;
}

}  // namespace strata::io
