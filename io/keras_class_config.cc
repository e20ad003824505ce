#include "io/keras_class_config.h"

#include <cctype>
#include <functional>

#include "core/error.h"

namespace strata::io {
namespace {

using layers::ConfigValue;
using layers::FieldSpec;
using layers::Spelling;
using layers::ValueKind;

[[noreturn]] void bad_value(const std::string& where, const FieldSpec& f, const char* expected,
                            const json& v) {
  throw ValueError(where + ": '" + f.key + "' must be " + expected + ", got " + v.dump());
}

std::int64_t integer(const std::string& where, const FieldSpec& f, const json& v) {
  // Keras 2 sometimes writes an integral float (2.0).
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<std::int64_t>(v.get<double>())))
    return static_cast<std::int64_t>(v.get<double>());
  bad_value(where, f, "an integer", v);
}

// A list of integers; a single integer is a list of one (Keras accepts both for axes).
std::vector<std::int64_t> integers(const std::string& where, const FieldSpec& f, const json& v) {
  if (v.is_number()) return {integer(where, f, v)};
  if (!v.is_array()) bad_value(where, f, "a list of integers", v);
  std::vector<std::int64_t> out;
  for (const auto& e : v) out.push_back(integer(where, f, e));
  return out;
}

// Keras's "int or tuple of n ints": 3, [3] or [3, 3] for n = 2.
std::vector<std::int64_t> int_tuple(const std::string& where, const FieldSpec& f, int n,
                                    const json& v) {
  std::vector<std::int64_t> out;
  if (v.is_number()) {
    out.assign(static_cast<std::size_t>(n), integer(where, f, v));
  } else {
    out = integers(where, f, v);
    if (out.size() != static_cast<std::size_t>(n)) {
      throw ValueError(where + ": '" + f.key + "' must be an integer or a list of " +
                       std::to_string(n) + " integers, got " + v.dump());
    }
  }
  return out;
}

std::string string_value(const std::string& where, const FieldSpec& f, const json& v,
                         const ConfigContext& ctx) {
  switch (f.spelling) {
    case Spelling::activation:
      return activation_from_config(v, ctx, where);
    case Spelling::data_format:
      if (v == "channels_last") return "";
      if (v == "channels_first") return "channels_first";
      bad_value(where, f, "'channels_last' or 'channels_first'", v);
    case Spelling::padding: {
      if (!v.is_string()) bad_value(where, f, "a string", v);
      std::string p = v.get<std::string>();
      for (auto& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      return p;
    }
    default:
      if (!v.is_string()) bad_value(where, f, "a string", v);
      return v.get<std::string>();
  }
}

ConfigValue decode(const std::string& where, const FieldSpec& f, const json& v,
                   const ConfigContext& ctx) {
  switch (f.kind) {
    case ValueKind::boolean:
      if (!v.is_boolean()) bad_value(where, f, "true or false", v);
      return v.get<bool>();
    case ValueKind::integer:
      if (f.spelling == Spelling::window1) return int_tuple(where, f, 1, v)[0];
      return integer(where, f, v);
    case ValueKind::number:
      if (!v.is_number()) bad_value(where, f, "a number", v);
      return v.get<double>();
    case ValueKind::string:
      return string_value(where, f, v, ctx);
    case ValueKind::int_tuple:
      return int_tuple(where, f, f.arity, v);
    case ValueKind::int_list:
      return integers(where, f, v);
    case ValueKind::number_list: {
      // Keras writes np.array(...).tolist(): a number, or a (nested) list of numbers.
      std::vector<double> out;
      std::function<void(const json&)> flatten = [&](const json& e) {
        if (e.is_object() && e.value("class_name", "") == "__numpy__" && e.contains("config")) {
          flatten(e["config"].value("value", json()));  // a NumPy array, as Keras 3 saves one
        } else if (e.is_array()) {
          for (const auto& x : e) flatten(x);
        } else if (e.is_number()) {
          out.push_back(e.get<double>());
        } else {
          bad_value(where, f, "a number or a list of numbers", v);
        }
      };
      flatten(v);
      return out;
    }
    case ValueKind::shape:
      return shape_from_json(v, where + " '" + f.key + "'").dims();
    case ValueKind::initializer:
      return initializer_from_config(v, where);
  }
  bad_value(where, f, "a known kind of value", v);
}

json encode(const FieldSpec& f, const ConfigValue& value) {
  return std::visit(
      [&](const auto& v) -> json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (f.spelling == Spelling::activation) return activation_to_config(v);
          if (f.spelling == Spelling::data_format) return v.empty() ? "channels_last" : v;
          return v;
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          if (f.spelling == Spelling::window1) return json::array({v});
          return v;
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          if (f.kind == ValueKind::shape) return shape_to_json(Shape(v));
          if (f.spelling == Spelling::bare_single && v.size() == 1) return v[0];
          return json(v);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          if (f.spelling == Spelling::bare_single && v.size() == 1) return v[0];
          return json(v);
        } else if constexpr (std::is_same_v<T, Initializer>) {
          return initializer_to_config(v);
        } else {
          return v;
        }
      },
      value);
}

class JsonConfigSource : public layers::ConfigSource {
 public:
  JsonConfigSource(const std::string& class_name, const json& config, const ConfigContext& ctx)
      : config_(config), ctx_(ctx), where_(describe(class_name, config)) {
    if (!ctx.source.empty()) where_ += " in " + ctx.source;
  }
  std::optional<ConfigValue> get(const FieldSpec& f) const override {
    std::string key = f.key;
    if (!config_.contains(key) && !f.keras2_key.empty()) key = f.keras2_key;
    if (!config_.contains(key)) return std::nullopt;
    const json& v = config_[key];
    if (v.is_null()) {
      if (f.nullable) return ConfigValue{};
      if (f.spelling == Spelling::activation || f.spelling == Spelling::data_format)
        return std::string();
      return std::nullopt;
    }
    return decode(where_, f, v, ctx_);
  }
  std::string name() const override { return config_.value("name", std::string()); }
  std::string where() const override { return where_; }

 private:
  const json& config_;
  const ConfigContext& ctx_;
  std::string where_;
};

}  // namespace

LayerConfigEntry config_entry_for(const layers::KerasClass& k) {
  LayerConfigEntry e;
  e.class_name = k.class_name;
  e.module = k.module;
  e.to_config = [k](const LayerImpl& impl) {
    const std::vector<ConfigValue> values = k.values(impl);
    json out = json::object();
    for (std::size_t i = 0; i < k.fields.size(); ++i)
      out[k.fields[i].key] = encode(k.fields[i], values.at(i));
    for (const auto& key : k.unmodeled_keys) out[key] = nullptr;
    for (const auto& key : k.refused_keys) out[key] = nullptr;
    return out;
  };
  e.from_config = [k](const json& config, const ConfigContext& ctx) -> Layer {
    JsonConfigSource source(k.class_name, config, ctx);
    for (const auto& key : k.refused_keys) {
      if (config.contains(key) && !config[key].is_null()) {
        throw NotImplementedError(source.where() + ": '" + key + "' = " + config[key].dump() +
                                  " is not supported");
      }
    }
    return k.make(source);
  };
  return e;
}

}  // namespace strata::io
