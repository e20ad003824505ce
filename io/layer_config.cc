#include "io/layer_config.h"

#include <algorithm>
#include <memory>

#include "core/error.h"
#include "io/custom_layer.h"
#include "io/dtype_policy_config.h"
#include "io/keras_class_config.h"
#include "io/weight_rule_config.h"
#include "layers/activations.h"
#include "layers/keras_class.h"

namespace strata::io {

namespace {

// A class's hand-written entry, as layers' registry holds it (KerasClass::hand_written).
struct HandWrittenEntry final : layers::HandWrittenConfig {
  explicit HandWrittenEntry(LayerConfigEntry e) : entry(std::move(e)) {}
  LayerConfigEntry entry;
};

// Only register_layer_config sets hand_written, always to a HandWrittenEntry.
const LayerConfigEntry* hand_written(const layers::KerasClass& k) {
  return k.hand_written ? &static_cast<const HandWrittenEntry&>(*k.hand_written).entry : nullptr;
}

// Keras 3 wraps the dtype in a DTypePolicy object; Keras 2 wrote a string or a Policy.
std::string dtype_name(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_object() && value.contains("config") && value["config"].contains("name")) {
    return value["config"]["name"].get<std::string>();
  }
  return "float32";
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Nothing silent (issue #38): a weight's regularizer or constraint that the class does not
// hold as a value (a key it lacks, or one it only writes) is refused when set, naming the
// layer, the key and the value. activity_regularizer, which every Keras layer takes, is
// read for every class (layer_from_config).
void refuse_unapplied_rules(const layers::KerasClass& k, const json& config, const std::string& where) {
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    if (it.value().is_null() || key == "activity_regularizer") continue;
    if (!ends_with(key, "_regularizer") && !ends_with(key, "_constraint")) continue;
    const bool held = std::any_of(k.fields.begin(), k.fields.end(), [&](const layers::FieldSpec& f) {
      return f.key == key && f.role == layers::FieldRole::value;
    });
    if (held) continue;
    throw NotImplementedError(where + ": '" + key + "' = " + it.value().dump() + " is not supported (Strata does not " +
                              "apply " + (ends_with(key, "_regularizer") ? "regularizers" : "constraints") +
                              " to this layer's weights)");
  }
}

}  // namespace

bool register_layer_config(LayerConfigEntry entry) {
  if (!entry.registered_name.empty()) {
    // One registry holds Keras's classes and users': a user's "pkg>Dense" would replace
    // Keras's Dense for every file, where Keras keeps the two apart.
    const auto existing = layers::find_keras_class(entry.class_name);
    if (existing && existing->module.rfind("keras", 0) == 0) {
      throw ValueError("cannot register '" + entry.registered_name + "': '" + entry.class_name +
                       "' is a Keras class Strata has; give the custom class another name");
    }
    const std::string held = registered_name_of(entry.class_name);
    if (!held.empty() && held != entry.registered_name) {
      throw ValueError("cannot register '" + entry.registered_name + "': class '" + entry.class_name +
                       "' is already registered as '" + held +
                       "' (files save a class by its name: give one of them another name)");
    }
  }
  layers::KerasClass k;
  k.class_name = entry.class_name;
  k.module = entry.module;
  k.hand_written = std::make_shared<const HandWrittenEntry>(std::move(entry));
  return layers::register_keras_class(std::move(k));
}

std::string registered_name_of(const std::string& class_name) {
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(class_name);
  const LayerConfigEntry* by_hand = k ? hand_written(*k) : nullptr;
  return by_hand ? by_hand->registered_name : "";
}

std::shared_ptr<const layers::KerasClass> find_registered_class(const std::string& registered_name) {
  for (const std::string& name : layers::keras_class_names()) {
    std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(name);
    const LayerConfigEntry* by_hand = k ? hand_written(*k) : nullptr;
    if (by_hand && !registered_name.empty() && by_hand->registered_name == registered_name) return k;
  }
  return nullptr;
}

std::vector<std::string> registered_layer_classes() {
  std::vector<std::string> names = layers::keras_class_names();
  for (const char* model : {"Functional", "Model", "Sequential"}) names.push_back(model);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

void throw_unsupported_layer(const std::string& class_name, const std::string& layer_name,
                             const std::string& where, const std::string& registered_name) {
  std::string known;
  for (const auto& n : registered_layer_classes()) known += (known.empty() ? "" : ", ") + n;
  std::string msg =
      "layer '" + layer_name + "' has class '" + class_name + "', which Strata does not support";
  if (class_name == "Lambda")
    msg += " (Lambda layers hold Python code, which cannot be loaded in C++)";
  if (!where.empty()) msg += " (in " + where + ")";
  msg += ". Supported classes: " + known + ". ";
  const std::size_t split = registered_name.find('>');
  if (split != std::string::npos) {
    const std::string package = registered_name.substr(0, split), name = registered_name.substr(split + 1);
    msg += "Keras registered it as '" + registered_name + "': register a C++ layer class '" + name +
           "' under that package with strata::saving::register_keras_serializable<" + name + ">(\"" + package +
           "\") (docs/extending.md).";
  } else {
    msg += "Register your own with strata::saving::register_keras_serializable<MyLayer>(\"package\") " +
           std::string("(docs/extending.md) or strata::io::register_layer<MyLayer>(\"") + class_name + "\").";
  }
  throw NotImplementedError(msg);
}

std::string describe(const std::string& class_name, const json& config) {
  std::string name = config.is_object() && config.contains("name") && config["name"].is_string()
                         ? config["name"].get<std::string>()
                         : "?";
  return class_name + " '" + name + "'";
}

const json& require_key(const json& config, const std::string& key, const std::string& where) {
  if (!config.is_object() || !config.contains(key)) {
    throw ValueError(where + ": config has no '" + key + "'");
  }
  return config[key];
}

std::int64_t positive_int(const json& config, const std::string& key, const std::string& where) {
  const json& v = require_key(config, key, where);
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) {
    throw ValueError(where + ": '" + key + "' must be a positive integer, got " + v.dump());
  }
  return v.get<std::int64_t>();
}

Shape shape_from_json(const json& value, const std::string& where) {
  if (!value.is_array()) throw ValueError(where + ": expected a shape list, got " + value.dump());
  std::vector<std::int64_t> dims;
  for (const auto& d : value) {
    if (d.is_null()) {
      dims.push_back(kUnknownDim);
    } else if (d.is_number_integer() && d.get<std::int64_t>() >= 0) {
      dims.push_back(d.get<std::int64_t>());
    } else {
      throw ValueError(where + ": invalid dimension " + d.dump() + " in shape " + value.dump());
    }
  }
  return Shape(dims);
}

json shape_to_json(const Shape& shape) {
  json out = json::array();
  for (auto d : shape.dims()) out.push_back(d == kUnknownDim ? json(nullptr) : json(d));
  return out;
}

json initializer_to_config(const Initializer& init) {
  const std::string cls = init.defined() ? init.class_name() : "Zeros";
  json config = json::object();
  const InitializerConfig c = init.defined() ? init.config() : InitializerConfig{};
  for (const auto& [key, value] : c.numbers) config[key] = value;
  for (const auto& [key, value] : c.strings) config[key] = value;
  const bool seeded = cls != "Zeros" && cls != "Ones" && cls != "Constant" && cls != "Identity";
  if (seeded) {
    // Keras seeds are small integers; a drawn 64-bit seed is not written (Keras draws anew).
    const auto seed = init.seed();
    config["seed"] = seed && *seed <= 0x7fffffffu ? json(*seed) : json(nullptr);
  }
  return json{{"module", "keras.initializers"},
              {"class_name", cls},
              {"config", config},
              {"registered_name", nullptr}};
}

Initializer initializer_from_config(const json& value, const std::string& where) {
  namespace I = initializers;
  if (value.is_string()) return I::get(value.get<std::string>());
  if (!value.is_object() || !value.contains("class_name")) {
    throw ValueError(where + ": cannot read initializer " + value.dump());
  }
  const std::string cls = value["class_name"].get<std::string>();
  const json cfg = value.value("config", json::object());
  std::optional<std::uint64_t> seed;
  if (cfg.contains("seed") && cfg["seed"].is_number_integer())
    seed = cfg["seed"].get<std::uint64_t>();
  auto num = [&](const char* k, double d) {
    return cfg.contains(k) && cfg[k].is_number() ? cfg[k].get<double>() : d;
  };
  if (cls == "Zeros") return I::Zeros();
  if (cls == "Ones") return I::Ones();
  if (cls == "Constant") return I::Constant(num("value", 0.0));
  if (cls == "RandomUniform")
    return I::RandomUniform({num("minval", -0.05), num("maxval", 0.05), seed});
  if (cls == "RandomNormal") return I::RandomNormal({num("mean", 0.0), num("stddev", 0.05), seed});
  if (cls == "TruncatedNormal")
    return I::TruncatedNormal({num("mean", 0.0), num("stddev", 0.05), seed});
  if (cls == "GlorotUniform") return I::GlorotUniform({seed});
  if (cls == "GlorotNormal") return I::GlorotNormal({seed});
  if (cls == "HeUniform") return I::HeUniform({seed});
  if (cls == "HeNormal") return I::HeNormal({seed});
  if (cls == "LecunUniform") return I::LecunUniform({seed});
  if (cls == "LecunNormal") return I::LecunNormal({seed});
  if (cls == "Orthogonal" || cls == "OrthogonalInitializer")  // Keras 3 class name
    return I::Orthogonal({num("gain", 1.0), seed});
  if (cls == "VarianceScaling") {
    std::string dist = cfg.value("distribution", "truncated_normal");
    if (dist == "normal") dist = "truncated_normal";  // Keras 2.0-2.2 name
    return I::VarianceScaling({num("scale", 1.0), cfg.value("mode", "fan_in"), dist, seed});
  }
  // Only the weights' initial values depend on it; loaded weights replace them.
  try {
    return I::get(cls);
  } catch (const ValueError&) {
    throw NotImplementedError(where + ": initializer class '" + cls + "' is not supported");
  }
}

std::string activation_to_config(const std::string& activation) {
  if (activation.empty()) return "linear";
  if (activation == "hard_sigmoid_keras2")
    return "hard_sigmoid";  // best effort: Keras 3 redefined it
  return activation;
}

std::string activation_from_config(const json& value, const ConfigContext& ctx,
                                   const std::string& where) {
  std::string name;
  if (value.is_null()) return "";
  if (value.is_string()) {
    name = value.get<std::string>();
  } else if (value.is_object() && value.contains("class_name")) {
    // Keras 3 may serialize a function as {"module": "keras.activations", "class_name": "function",
    // "config": "relu"}
    const json& cfg = value.value("config", json());
    name = cfg.is_string() ? cfg.get<std::string>() : value["class_name"].get<std::string>();
  } else {
    throw ValueError(where + ": cannot read activation " + value.dump());
  }
  if (name == "linear") return "";
  if (name == "hard_sigmoid" && ctx.keras_major < 3) name = "hard_sigmoid_keras2";
  try {
    activations::validate(name);
  } catch (const ValueError& e) {
    throw NotImplementedError(where + ": activation '" + name + "' is not supported: " + e.what());
  }
  return name;
}

json layer_config(const Layer& layer) {
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  if (!k && dynamic_cast<const CustomLayer*>(&layer.impl())) {
    throw NotImplementedError(layer.class_name() + " '" + layer.name() + "' is a CustomLayer whose class '" +
                              layer.class_name() + "' nobody registered, so files cannot hold it: register it with " +
                              "strata::saving::register_keras_serializable<T>(\"package\", \"" + layer.class_name() +
                              "\") (without that name, the C++ class's own name is registered; docs/extending.md)");
  }
  if (!k) throw_unsupported_layer(layer.class_name(), layer.name(), "saving");
  // model.quantize("int8") quantizes an attention layer's EinsumDense projections (Keras's
  // does too), which its config does not describe: Keras 3.15 writes them with float32
  // policies and cannot load its own file of them.
  if (layer.class_name() == "MultiHeadAttention" || layer.class_name() == "GroupQueryAttention") {
    for (const Layer& sub : layer.impl().sublayers()) {
      if (!sub.impl().quantization_mode.empty()) {
        throw NotImplementedError(layer.class_name() + " '" + layer.name() + "': its projection '" + sub.name() +
                                  "' is quantized to " + sub.impl().quantization_mode + ", which no Keras file of a " +
                                  layer.class_name() + " holds (Keras 3.15 cannot load its own such file): save "
                                  "the model before quantize()");
      }
    }
  }
  json cfg{{"name", layer.name()}, {"trainable", layer.trainable()}};
  cfg["dtype"] = dtype_policy_config(layer.impl());
  const LayerConfigEntry* by_hand = hand_written(*k);
  json own = by_hand ? by_hand->to_config(layer.impl()) : described_to_config(*k, layer.impl());
  // Keras writes activity_regularizer where the class's get_config lists it, else (the
  // base Layer's) after dtype, and then only when set.
  if (const Regularizer& activity = layer.impl().activity_regularizer; activity.defined()) {
    (own.contains("activity_regularizer") ? own : cfg)["activity_regularizer"] = regularizer_to_config(activity);
  }
  for (auto it = own.begin(); it != own.end(); ++it) cfg[it.key()] = it.value();
  if (!layer.impl().quantization_mode.empty()) {
    cfg["quantization_config"] = quantization_config_of(layer.impl().quantization_mode);
  }
  if (!k->trainable_key) cfg.erase("trainable");
  if (by_hand && !by_hand->base_keys) {  // Keras's Pipeline takes neither
    cfg.erase("trainable");
    cfg.erase("dtype");
  }
  return cfg;
}

Layer layer_from_config(const json& entry, const ConfigContext& ctx) {
  if (!entry.is_object() || !entry.contains("class_name") || !entry["class_name"].is_string()) {
    throw ValueError("layer entry without a class_name: " + entry.dump().substr(0, 200));
  }
  // A user's class: Keras's .keras files name it by "registered_name" ("package>Name"),
  // its .h5 files by that as the class name; Keras's own classes by their class name.
  std::string cls = entry["class_name"].get<std::string>();
  std::string registered;
  if (entry.contains("registered_name") && entry["registered_name"].is_string() &&
      entry["registered_name"].get<std::string>().find('>') != std::string::npos) {
    registered = entry["registered_name"].get<std::string>();
  } else if (cls.find('>') != std::string::npos) {
    registered = cls;
    cls = cls.substr(cls.find('>') + 1);
  }
  json config = entry.value("config", json::object());
  if (!config.is_object())
    throw ValueError("layer entry '" + cls + "' has a config that is not an object");
  // Legacy top-level "name" (functional entries) wins when the config lacks one.
  if (!config.contains("name") && entry.contains("name")) config["name"] = entry["name"];
  const std::string layer_name = config.value("name", std::string("?"));
  std::shared_ptr<const layers::KerasClass> k =
      registered.empty() ? layers::find_keras_class(cls) : find_registered_class(registered);
  // A class a user registered by its bare name (io::register_layer, no package) reads a file
  // that names it "package>Name" too; neither a built-in nor a class registered under
  // another package stands in for it.
  if (!k && !registered.empty()) {
    const auto bare = layers::find_keras_class(cls);
    if (bare && bare->module.rfind("keras", 0) != 0 && registered_name_of(cls).empty()) k = bare;
  }
  if (!k) throw_unsupported_layer(cls, layer_name, ctx.source, registered);
  std::string where = describe(cls, config);
  if (!ctx.source.empty()) where += " in " + ctx.source;
  // The dtype policy first: a policy Strata does not compute is the reason to refuse,
  // before any key that comes with it (docs/precision.md).
  const json policy = config.value("dtype", json());
  const std::string quantization_mode = quantization_mode_of(policy, where);
  if (!quantization_mode.empty()) {
    check_quantization_config(config.value("quantization_config", json()), quantization_mode, where);
    config.erase("quantization_config");
  }
  if (config.contains("dtype")) config["dtype"] = dtype_name(config["dtype"]);
  if (config.contains("batch_input_shape") && !config.contains("batch_shape")) {
    config["batch_shape"] = config["batch_input_shape"];
    config.erase("batch_input_shape");
  }
  refuse_unapplied_rules(*k, config, where);
  const LayerConfigEntry* by_hand = hand_written(*k);
  Layer layer = by_hand ? by_hand->from_config(config, ctx) : described_from_config(*k, config, ctx);
  set_quantization_mode(layer.impl(), quantization_mode, policy, where);
  // An InputLayer's "dtype" is its tensor's dtype, not a policy.
  if (cls != "InputLayer") set_float_policy(layer.impl(), float_policy_of(policy), policy, where);
  if (config.contains("activity_regularizer") && !config["activity_regularizer"].is_null()) {
    layer.impl().activity_regularizer = regularizer_from_config(config["activity_regularizer"], where,
                                                                "activity_regularizer");
  }
  if (config.contains("trainable") && config["trainable"].is_boolean()) {
    layer.set_trainable(config["trainable"].get<bool>());
  }
  return layer;
}

std::vector<VarGroup> keras3_var_groups(const Layer& layer) {
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  if (!k) return {{"vars", layer.impl().weights}};
  const LayerConfigEntry* by_hand = hand_written(*k);
  if (!by_hand) return described_var_groups(*k, layer.impl());
  if (by_hand->keras3_vars) return by_hand->keras3_vars(layer.impl());
  return {{"vars", layer.impl().weights}};
}

}  // namespace strata::io
