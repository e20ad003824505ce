#include "io/dtype_policy_config.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "layers/core/float8_quantization.h"
#include "layers/core/int4_quantization.h"

namespace strata::io {

namespace {

using json = nlohmann::ordered_json;

[[noreturn]] void refuse_dtype_policy(const json& value, const std::string& where, const std::string& why) {
  throw NotImplementedError(where + ": 'dtype' = " + value.dump() + " is not supported (" + why +
                            "; see docs/precision.md)");
}

// A policy name that is a floating-point compute policy: computing it in float32 would
// be silently different ("float16", "bfloat16", "float64", "mixed_float16", ...).
bool is_float_policy(const std::string& name) {
  return name.rfind("float", 0) == 0 || name.rfind("bfloat", 0) == 0 || name.rfind("mixed_", 0) == 0;
}

// A policy object's config, its keys checked: a key Strata does not read is refused, not
// skipped ("shared_object_id" is Keras's serialization bookkeeping, not a setting).
const json& policy_config(const json& value, const std::vector<std::string>& keys, const std::string& where) {
  static const json kEmpty = json::object();
  const json& config = value.contains("config") ? value["config"] : kEmpty;
  if (!config.is_object()) refuse_dtype_policy(value, where, "its config is not an object");
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) {
      refuse_dtype_policy(value, where, "key '" + it.key() + "' is not one Strata reads");
    }
  }
  return config;
}

// Keras's Int4DTypePolicy: sub-channel modes ("int4/<block>") over float32; the
// per-channel "int4" is refused.
std::string int4_mode_of(const json& value, const std::string& where) {
  const json& config = policy_config(value, {"mode", "source_name"}, where);
  const std::string mode = config.contains("mode") && config["mode"].is_string() ? config["mode"].get<std::string>() : "";
  const json source = config.value("source_name", json("float32"));
  if (!layers::int4_block_of(mode)) {
    refuse_dtype_policy(value, where, "Strata loads Keras's sub-channel int4 (\"int4/<block>\") only");
  }
  if (source != "float32") refuse_dtype_policy(value, where, "int4 layers over a " + source.dump() + " policy");
  return mode;
}

// Keras's QuantizedFloat8DTypePolicy over float32: "float8/<amax_history_length>".
std::string float8_mode_of(const json& value, const std::string& where) {
  const json& config = policy_config(value, {"mode", "source_name", "amax_history_length"}, where);
  if (config.value("mode", json()) != "float8") refuse_dtype_policy(value, where, "its mode is not \"float8\"");
  const json source = config.value("source_name", json("float32"));
  if (source != "float32") refuse_dtype_policy(value, where, "float8 layers over a " + source.dump() + " policy");
  const json length = config.value("amax_history_length", json(1024));
  if (!length.is_number_integer() || length.get<std::int64_t>() < 1 || length.get<std::int64_t>() > (1 << 24)) {
    refuse_dtype_policy(value, where, "amax_history_length is not a positive integer");
  }
  return layers::float8_mode(length.get<std::int64_t>());
}

std::string quantized_mode_of(const json& value, const std::string& where) {
  const json& config = policy_config(value, {"mode", "source_name"}, where);
  for (const char* key : {"mode", "source_name"}) {
    if (config.contains(key) && !config[key].is_string()) {
      refuse_dtype_policy(value, where, std::string(key) + " is not a string");
    }
  }
  const std::string mode = config.value("mode", std::string());
  const std::string source = config.value("source_name", std::string("float32"));
  if (mode != "int8") refuse_dtype_policy(value, where, "Strata loads the int8 quantization mode only");
  if (source != "float32") {
    refuse_dtype_policy(value, where, "quantized layers over a '" + source + "' policy: Strata computes float32");
  }
  return mode;
}

// Keras's default input quantizer of int8 layers, AbsMaxQuantizer(value_range=(-127, 127),
// epsilon=1e-7, output_dtype="int8"): the one layers/core/int8_quantization.h computes.
json default_int8_activation_quantizer() {
  return json{{"module", "keras.quantizers"},
              {"class_name", "AbsMaxQuantizer"},
              {"config", json{{"value_range", json::array({-127, 127})}, {"epsilon", 1e-07}, {"output_dtype", "int8"}}},
              {"registered_name", nullptr}};
}

// `value` without the keys that only say where a class comes from or that Keras shares
// an object ("module", "registered_name": tf.keras-dialect .h5 configs lack them;
// "shared_object_id"), at any depth: what is left is what the quantizers compute.
json without_bookkeeping(json value) {
  if (!value.is_object()) return value;
  for (const char* key : {"module", "registered_name", "shared_object_id"}) value.erase(key);
  for (auto it = value.begin(); it != value.end(); ++it) it.value() = without_bookkeeping(it.value());
  return value;
}

}  // namespace

std::string quantization_mode_of(const json& value, const std::string& where) {
  if (value.is_null()) return "";
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    if (is_float_policy(name) && !is_float_dtype_policy(name)) {
      refuse_dtype_policy(value, where, "Strata computes float32, and emulates bfloat16 and float16 (mixed or not); '" +
                                            name + "' is not among them");
    }
    // Keras's quantized policies by name ("int8_from_float32", "int4_from_mixed_bfloat16"):
    // Strata reads int8 only as the QuantizedDTypePolicy object its files hold.
    if (name.find("_from_") != std::string::npos) {
      refuse_dtype_policy(value, where, "a quantized policy named by a string; Strata reads int8 layers from "
                                        "QuantizedDTypePolicy objects only");
    }
    return "";
  }
  if (!value.is_object() || !value.contains("class_name") || !value["class_name"].is_string()) {
    refuse_dtype_policy(value, where, "not a dtype policy Strata reads");
  }
  const std::string cls = value["class_name"].get<std::string>();
  if (cls == "QuantizedDTypePolicy") return quantized_mode_of(value, where);
  if (cls == "Int4DTypePolicy") return int4_mode_of(value, where);
  if (cls == "QuantizedFloat8DTypePolicy") return float8_mode_of(value, where);
  if (cls != "DTypePolicy" && cls != "Policy") {
    refuse_dtype_policy(value, where, "Strata loads float policies, int8 QuantizedDTypePolicy and sub-channel "
                                      "Int4DTypePolicy; '" + cls + "' is not among them");
  }
  const json& config = policy_config(value, {"name"}, where);
  return quantization_mode_of(config.value("name", json("float32")), where);
}

std::string float_policy_of(const json& value) {
  if (value.is_string()) {
    const std::string name = value.get<std::string>();
    return is_float_dtype_policy(name) ? name : "float32";
  }
  if (value.is_object() && value.value("class_name", json()) != "QuantizedDTypePolicy" && value.contains("config") &&
      value["config"].is_object() && value["config"].contains("name")) {
    return float_policy_of(value["config"]["name"]);
  }
  return "float32";
}

void set_float_policy(LayerImpl& layer, const std::string& policy, const json& dtype, const std::string& where) {
  layer.dtype_policy = policy;
  for (Variable& v : layer.weights) store_in_policy_dtype(v, policy);
  try {
    check_dtype_policy(layer);
  } catch (const NotImplementedError& e) {
    refuse_dtype_policy(dtype, where, e.what());
  }
}

void check_quantization_config(const json& config, const std::string& mode, const std::string& where) {
  if (config.is_null()) return;
  if ((mode == "int8" || layers::int4_block_of(mode) || layers::float8_history_of(mode)) &&
      without_bookkeeping(config) == without_bookkeeping(quantization_config_of(mode))) {
    return;
  }
  throw NotImplementedError(where + ": 'quantization_config' = " + config.dump() + " is not supported (Strata " +
                            "computes " + mode + " layers with Keras's default quantizers only; see " +
                            "docs/precision.md)");
}

void set_quantization_mode(LayerImpl& layer, const std::string& mode, const json& dtype, const std::string& where) {
  if (mode.empty()) return;
  if (!layer.supports_quantization_mode(mode)) {
    refuse_dtype_policy(dtype, where, layer.class_name() + " has no " + mode + " form in Strata (Keras's are " +
                                          "Dense, EinsumDense and Embedding)");
  }
  layer.quantization_mode = mode;
}

json dtype_policy_config(const LayerImpl& layer) {
  if (layer.quantization_mode.empty()) {
    return json{{"module", "keras"},
                {"class_name", "DTypePolicy"},
                {"config", json{{"name", layer.dtype_policy.empty() ? "float32" : layer.dtype_policy}}},
                {"registered_name", nullptr}};
  }
  if (const auto history = layers::float8_history_of(layer.quantization_mode)) {
    return json{{"module", "keras.dtype_policies"},
                {"class_name", "QuantizedFloat8DTypePolicy"},
                {"config", json{{"mode", "float8"}, {"source_name", "float32"}, {"amax_history_length", *history}}},
                {"registered_name", nullptr}};
  }
  if (layers::int4_block_of(layer.quantization_mode)) {
    return json{{"module", "keras.dtype_policies"},
                {"class_name", "Int4DTypePolicy"},
                {"config", json{{"mode", layer.quantization_mode}, {"source_name", "float32"}}},
                {"registered_name", nullptr}};
  }
  return json{{"module", "keras.dtype_policies"},
              {"class_name", "QuantizedDTypePolicy"},
              {"config", json{{"mode", layer.quantization_mode}, {"source_name", "float32"}}},
              {"registered_name", nullptr}};
}

json quantization_config_of(const std::string& mode) {
  if (layers::float8_history_of(mode)) {
    return json{{"module", "keras.quantizers"},
                {"class_name", "Float8QuantizationConfig"},
                {"config", json::object()},
                {"registered_name", nullptr}};
  }
  if (const auto block = layers::int4_block_of(mode)) {
    return json{{"module", "keras.quantizers"},
                {"class_name", "Int4QuantizationConfig"},
                {"config", json{{"weight_quantizer", nullptr}, {"activation_quantizer", nullptr}, {"block_size", *block}}},
                {"registered_name", nullptr}};
  }
  if (mode != "int8") throw ValueError("no quantization config for mode '" + mode + "'");
  return json{{"module", "keras.quantizers"},
              {"class_name", "Int8QuantizationConfig"},
              {"config", json{{"weight_quantizer", nullptr}, {"activation_quantizer", default_int8_activation_quantizer()}}},
              {"registered_name", nullptr}};
}

}  // namespace strata::io
