#include "io/keras_class_config.h"

#include <algorithm>
#include <cctype>
#include <functional>

#include "core/error.h"
#include "io/weight_rule_config.h"

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
  for (const auto& e : v) {
    if (!e.is_number()) bad_value(where, f, "a list of integers", v);
    out.push_back(integer(where, f, e));
  }
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

// Nested padding amounts, f.arity / 2 axes (ZeroPadding2D: 2, ZeroPadding3D: 3): n, one
// symmetric amount per axis ([rows, cols]) or a pair per axis ([[top, bottom], [left, right]]).
std::vector<std::int64_t> pairs(const std::string& where, const FieldSpec& f, const json& v) {
  const int axes = f.arity / 2;
  if (v.is_array() && v.size() == static_cast<std::size_t>(axes) && v[0].is_array()) {
    std::vector<std::int64_t> out;
    for (const auto& axis : v) {
      for (auto x : int_tuple(where, f, 2, axis)) out.push_back(x);
    }
    return out;
  }
  std::vector<std::int64_t> out;
  for (auto x : int_tuple(where, f, axes, v)) out.insert(out.end(), {x, x});
  return out;
}

void check_at_least(const std::string& where, const FieldSpec& f, const json& v,
                    const std::vector<std::int64_t>& values) {
  for (auto x : values) {
    if (x >= f.at_least) continue;
    if (f.at_least == 1 && f.kind == ValueKind::integer) bad_value(where, f, "a positive integer", v);
    throw ValueError(where + ": '" + f.key + "' must be >= " + std::to_string(f.at_least) +
                     ", got " + v.dump());
  }
}

ConfigValue decode_value(const std::string& where, const FieldSpec& f, const json& v,
                         const ConfigContext& ctx);

ConfigValue decode(const std::string& where, const FieldSpec& f, const json& v,
                   const ConfigContext& ctx) {
  ConfigValue out = decode_value(where, f, v, ctx);
  if (const auto* i = std::get_if<std::int64_t>(&out)) check_at_least(where, f, v, {*i});
  if (f.kind != ValueKind::shape) {
    if (const auto* l = std::get_if<std::vector<std::int64_t>>(&out)) check_at_least(where, f, v, *l);
  }
  return out;
}

ConfigValue decode_value(const std::string& where, const FieldSpec& f, const json& v,
                         const ConfigContext& ctx) {
  switch (f.kind) {
    case ValueKind::boolean:
      if (!v.is_boolean()) bad_value(where, f, "true or false", v);
      return v.get<bool>();
    case ValueKind::integer:
      if (f.spelling == Spelling::window1 || f.spelling == Spelling::unwrap1)
        return int_tuple(where, f, 1, v)[0];
      return integer(where, f, v);
    case ValueKind::number:
      if (!v.is_number()) bad_value(where, f, "a number", v);
      return v.get<double>();
    case ValueKind::string:
      return string_value(where, f, v, ctx);
    case ValueKind::int_tuple:
      if (f.spelling == Spelling::pairs) return pairs(where, f, v);
      return int_tuple(where, f, f.arity, v);
    case ValueKind::int_list:
      if (f.spelling == Spelling::up_to && v.is_number()) {
        std::vector<std::int64_t> widths;
        for (std::int64_t n = 1; n <= integer(where, f, v); ++n) widths.push_back(n);
        return widths;
      }
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
      if (f.spelling == Spelling::bare_single && v.is_number_integer()) return std::vector<std::int64_t>{v.get<std::int64_t>()};
      if (f.spelling == Spelling::dims) {
        if (!v.is_array()) bad_value(where, f, "a list of integers", v);
        return integers(where, f, v);
      }
      return shape_from_json(v, where + " '" + f.key + "'").dims();
    case ValueKind::initializer:
      return initializer_from_config(v, where);
    case ValueKind::layer:
      return layer_from_config(v, ctx);
    case ValueKind::regularizer:
      return regularizer_from_config(v, where, f.key);
    case ValueKind::constraint:
      return constraint_from_config(v, where, f.key);
    case ValueKind::token:
      if (v.is_string()) return v.get<std::string>();
      if (v.is_number_integer()) return v.get<std::int64_t>();
      bad_value(where, f, "an integer or a string", v);
    case ValueKind::number_map: {
      if (!v.is_object()) bad_value(where, f, "a dict of numbers", v);
      layers::NumberMap out;
      for (const auto& [key, value] : v.items()) {
        if (!value.is_number()) bad_value(where, f, "a dict of numbers", v);
        out[key] = value.get<double>();
      }
      return out;
    }
    case ValueKind::string_list: {
      std::vector<std::string> out;
      const json& list = v.is_object() && v.value("class_name", "") == "__numpy__" && v.contains("config")
                             ? v["config"].value("value", json())
                             : v;
      if (!list.is_array()) bad_value(where, f, "a list of strings", v);
      for (const auto& e : list) {
        if (!e.is_string()) bad_value(where, f, "a list of strings", v);
        out.push_back(e.get<std::string>());
      }
      return out;
    }
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
          if (f.spelling == Spelling::seed && (v < 0 || v > 0x7fffffff)) return nullptr;
          return v;
        } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
          if (f.kind == ValueKind::shape && f.spelling == Spelling::bare_single && v.size() == 1 && v[0] >= 0)
            return v[0];
          if (f.kind == ValueKind::shape && f.spelling != Spelling::dims)
            return shape_to_json(Shape(v));
          if (f.spelling == Spelling::pairs) {
            json nested = json::array();
            for (std::size_t i = 0; i + 1 < v.size(); i += 2) nested.push_back(json::array({v[i], v[i + 1]}));
            return nested;
          }
          const bool all_equal = std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
          if (f.spelling == Spelling::compact && !v.empty() &&
              (f.kind == ValueKind::int_tuple ? all_equal : v.size() == 1))
            return v[0];
          if (f.spelling == Spelling::bare_single && v.size() == 1) return v[0];
          if (f.spelling == Spelling::up_to && !v.empty()) {
            bool one_to_n = true;
            for (std::size_t i = 0; i < v.size(); ++i) one_to_n = one_to_n && v[i] == static_cast<std::int64_t>(i + 1);
            if (one_to_n) return static_cast<std::int64_t>(v.size());
          }
          return json(v);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          if (f.spelling == Spelling::bare_single && v.size() == 1) return v[0];
          return json(v);
        } else if constexpr (std::is_same_v<T, Initializer>) {
          return initializer_to_config(v);
        } else if constexpr (std::is_same_v<T, Regularizer>) {
          return regularizer_to_config(v);
        } else if constexpr (std::is_same_v<T, Constraint>) {
          return constraint_to_config(v);
        } else if constexpr (std::is_same_v<T, Layer>) {
          const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(v.class_name());
          return json{{"module", k ? k->module : "keras.layers"},
                      {"class_name", v.class_name()},
                      {"config", layer_config(v)},
                      {"registered_name", nullptr}};
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
  int keras_major() const override { return ctx_.keras_major; }
  std::string where() const override { return where_; }

 private:
  const json& config_;
  const ConfigContext& ctx_;
  std::string where_;
};

// A layer's own check (a constructor's "Conv2D: padding ..." message) said again with the
// layer, its name and the file: "Conv2D 'c' in m.h5: padding ...".
std::string located(const std::string& where, const std::string& class_name, const char* what) {
  std::string msg = what;
  if (msg.find(where) != std::string::npos) return msg;
  if (msg.rfind(class_name + ": ", 0) == 0) msg = msg.substr(class_name.size() + 2);
  return where + ": " + msg;
}

}  // namespace

json fields_to_config(const std::vector<FieldSpec>& fields, const std::vector<ConfigValue>& values) {
  json out = json::object();
  std::size_t next = 0;
  for (const FieldSpec& f : fields) {
    if (f.role == layers::FieldRole::value) {
      out[f.key] = encode(f, values.at(next++));
    } else if (f.written) {
      out[f.key] = json::parse(f.fixed);
    }
  }
  return out;
}

bool read_for_every_layer(const std::string& key) {
  static const char* const kEveryLayer[] = {"name",       "trainable",         "dtype",
                                            "batch_shape", "batch_input_shape", "activity_regularizer"};
  return std::find(std::begin(kEveryLayer), std::end(kEveryLayer), key) != std::end(kEveryLayer);
}

namespace {

void refuse(const std::vector<FieldSpec>& fields, const json& config, const std::string& where) {
  for (const FieldSpec& f : fields) {
    if (f.role != layers::FieldRole::refused || !config.contains(f.key)) continue;
    const json& v = config[f.key];
    if (!v.is_null() && v != json::parse(f.fixed)) {
      throw NotImplementedError(where + ": '" + f.key + "' = " + v.dump() + " is not supported" +
                                (f.note.empty() ? "" : " (" + f.note + ")"));
    }
  }
}

// Every key of the config is one the class describes (read, fixed or refused) or one
// read for every layer (activity_regularizer: io/layer_config.cc); any other is refused
// naming the layer, the key and the value, never ignored (issue #38's "nothing silent").
void refuse_unknown_keys(const std::vector<FieldSpec>& fields, const json& config, const std::string& where) {
  for (auto it = config.begin(); it != config.end(); ++it) {
    const std::string& key = it.key();
    if (read_for_every_layer(key)) continue;
    const bool described = std::any_of(fields.begin(), fields.end(), [&](const FieldSpec& f) {
      return f.key == key || (!f.keras2_key.empty() && f.keras2_key == key);
    });
    if (!described) {
      throw NotImplementedError(where + ": config key '" + key + "' = " + it.value().dump() +
                                " is not one Strata reads for this class");
    }
  }
}

}  // namespace

std::unique_ptr<layers::ConfigSource> config_source(const std::string& class_name,
                                                    const std::vector<FieldSpec>& fields,
                                                    const json& config, const ConfigContext& ctx) {
  auto source = std::make_unique<JsonConfigSource>(class_name, config, ctx);
  refuse(fields, config, source->where());
  refuse_unknown_keys(fields, config, source->where());
  return source;
}

json described_to_config(const layers::KerasClass& k, const LayerImpl& layer) {
  return fields_to_config(k.fields, k.values(layer));
}

std::vector<VarGroup> described_var_groups(const layers::KerasClass& k, const LayerImpl& layer) {
  if (!k.keras3_vars) return {{"vars", layer.weights}};
  std::vector<VarGroup> out;
  for (const auto& g : k.keras3_vars(layer)) {
    if (!g.nested.defined()) {
      out.push_back({g.path, g.variables});
      continue;
    }
    for (VarGroup inner : keras3_var_groups(g.nested)) {
      inner.path = g.path + inner.path;
      out.push_back(std::move(inner));
    }
  }
  return out;
}

Layer described_from_config(const layers::KerasClass& k, const json& config, const ConfigContext& ctx) {
  JsonConfigSource source(k.class_name, config, ctx);
  refuse(k.fields, config, source.where());
  refuse_unknown_keys(k.fields, config, source.where());
  if (k.check) k.check(source);
  try {
    return k.make(source);
  } catch (const NotImplementedError& err) {
    throw NotImplementedError(located(source.where(), k.class_name, err.what()));
  } catch (const ValueError& err) {
    throw ValueError(located(source.where(), k.class_name, err.what()));
  }
}

}  // namespace strata::io
