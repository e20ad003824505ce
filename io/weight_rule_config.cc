#include "io/weight_rule_config.h"

#include <functional>
#include <map>
#include <set>

#include "core/error.h"

namespace strata::io {

namespace {

// What a config value names: its class and its config, with the checks both kinds share.
struct Named {
  std::string class_name;
  json config;
};

Named named(const json& value, const std::string& where, const std::string& key, const char* module,
            const char* kind) {
  auto refused = [&](const std::string& why) -> NotImplementedError {
    return NotImplementedError(where + ": '" + key + "' = " + value.dump() + " is not supported (" + why + ")");
  };
  if (value.is_string()) return {value.get<std::string>(), json::object()};
  if (!value.is_object() || !value.contains("class_name") || !value["class_name"].is_string()) {
    throw ValueError(where + ": '" + key + "' must be a " + kind + " (a name or a config object), got " +
                     value.dump());
  }
  const json registered = value.value("registered_name", json());
  const std::string cls = value["class_name"].get<std::string>();
  if (!registered.is_null() && registered != cls) throw refused(std::string("a user's registered ") + kind);
  if (value.contains("module") && value["module"] != module) {
    throw refused(std::string("a ") + kind + " from module " + value["module"].dump() + "; Strata has " + module +
                  "'s");
  }
  json config = value.value("config", json::object());
  if (!config.is_object()) {
    throw ValueError(where + ": '" + key + "' has a config that is not an object: " + value.dump());
  }
  return {cls, config};
}

// The config's number `name`, or `fallback` when absent or null (Keras's None).
double number(const Named& n, const char* name, double fallback, const std::string& where, const std::string& key,
              const json& value) {
  if (!n.config.contains(name) || n.config[name].is_null()) return fallback;
  if (!n.config[name].is_number()) {
    throw ValueError(where + ": '" + key + "' = " + value.dump() + ": '" + name + "' must be a number");
  }
  return n.config[name].get<double>();
}

void only_keys(const Named& n, const std::set<std::string>& keys, const std::string& where, const std::string& key,
               const json& value) {
  for (auto it = n.config.begin(); it != n.config.end(); ++it) {
    if (!keys.count(it.key())) {
      throw NotImplementedError(where + ": '" + key + "' = " + value.dump() + " is not supported (" + n.class_name +
                                " takes no argument '" + it.key() + "')");
    }
  }
}

// A factory's own ValueError (a negative factor), said with the layer, key and value.
template <typename Make>
auto rule_located(const std::string& where, const std::string& key, const json& value, Make make) {
  try {
    return make();
  } catch (const ValueError& e) {
    throw ValueError(where + ": '" + key + "' = " + value.dump() + ": " + e.what());
  }
}

json wrapped(const char* module, const std::string& class_name, json config) {
  return json{{"module", module},
              {"class_name", class_name},
              {"config", std::move(config)},
              {"registered_name", nullptr}};
}

// Keras keeps L1's l1 and OrthogonalRegularizer's factor as float32 tensors and writes
// float(tensor): 0.01 is written 0.009999999776482582.
double as_float32(double v) { return static_cast<double>(static_cast<float>(v)); }

json axis_json(const layers::Axes& axis) {
  if (axis.values.size() == 1) return axis.values.front();
  return json(axis.values);
}

}  // namespace

json regularizer_to_config(const Regularizer& r) {
  switch (r.kind()) {
    case Regularizer::Kind::none: return nullptr;
    case Regularizer::Kind::l1: return wrapped("keras.regularizers", "L1", {{"l1", as_float32(r.l1())}});
    case Regularizer::Kind::l2: return wrapped("keras.regularizers", "L2", {{"l2", r.l2()}});
    case Regularizer::Kind::l1l2: return wrapped("keras.regularizers", "L1L2", {{"l1", r.l1()}, {"l2", r.l2()}});
    case Regularizer::Kind::orthogonal:
      return wrapped("keras.regularizers", "OrthogonalRegularizer",
                     {{"factor", as_float32(r.factor())}, {"mode", r.mode()}});
  }
  return nullptr;
}

Regularizer regularizer_from_config(const json& value, const std::string& where, const std::string& key) {
  if (value.is_null()) return {};
  const Named n = named(value, where, key, "keras.regularizers", "regularizer");
  auto num = [&](const char* name, double fallback) { return number(n, name, fallback, where, key, value); };
  namespace R = regularizers;
  const std::string& cls = n.class_name;
  if (value.is_string()) return rule_located(where, key, value, [&] { return R::get(cls); });
  if (cls == "L1" || cls == "l1") {
    only_keys(n, {"l1"}, where, key, value);
    return rule_located(where, key, value, [&] { return R::L1(num("l1", 0.01)); });
  }
  if (cls == "L2" || cls == "l2") {
    only_keys(n, {"l2"}, where, key, value);
    return rule_located(where, key, value, [&] { return R::L2(num("l2", 0.01)); });
  }
  if (cls == "L1L2" || cls == "l1l2") {
    only_keys(n, {"l1", "l2"}, where, key, value);
    return rule_located(where, key, value, [&] { return R::L1L2({.l1 = num("l1", 0.0), .l2 = num("l2", 0.0)}); });
  }
  if (cls == "OrthogonalRegularizer" || cls == "orthogonal_regularizer") {
    only_keys(n, {"factor", "mode"}, where, key, value);
    if (n.config.contains("mode") && !n.config["mode"].is_string()) {
      throw ValueError(where + ": '" + key + "' = " + value.dump() + ": 'mode' must be \"rows\" or \"columns\"");
    }
    return rule_located(where, key, value, [&] {
      return R::OrthogonalRegularizer({.factor = num("factor", 0.01), .mode = n.config.value("mode", "rows")});
    });
  }
  throw NotImplementedError(where + ": '" + key + "' = " + value.dump() +
                            " is not supported (regularizer class '" + cls +
                            "'; Strata has L1, L2, L1L2 and OrthogonalRegularizer)");
}

json constraint_to_config(const Constraint& c) {
  switch (c.kind()) {
    case Constraint::Kind::none: return nullptr;
    case Constraint::Kind::max_norm:
      return wrapped("keras.constraints", "MaxNorm", {{"max_value", c.max_value()}, {"axis", axis_json(c.axis())}});
    case Constraint::Kind::min_max_norm:
      return wrapped("keras.constraints", "MinMaxNorm",
                     {{"min_value", c.min_value()}, {"max_value", c.max_value()}, {"rate", c.rate()},
                      {"axis", axis_json(c.axis())}});
    case Constraint::Kind::non_neg: return wrapped("keras.constraints", "NonNeg", json::object());
    case Constraint::Kind::unit_norm: return wrapped("keras.constraints", "UnitNorm", {{"axis", axis_json(c.axis())}});
  }
  return nullptr;
}

Constraint constraint_from_config(const json& value, const std::string& where, const std::string& key) {
  if (value.is_null()) return {};
  const Named n = named(value, where, key, "keras.constraints", "constraint");
  auto num = [&](const char* name, double fallback) { return number(n, name, fallback, where, key, value); };
  auto axis = [&]() -> layers::Axes {
    if (!n.config.contains("axis") || n.config["axis"].is_null()) return 0;
    const json& a = n.config["axis"];
    if (a.is_number_integer()) return a.get<std::int64_t>();
    std::vector<std::int64_t> axes;
    if (a.is_array()) {
      for (const auto& e : a) {
        if (!e.is_number_integer()) break;
        axes.push_back(e.get<std::int64_t>());
      }
    }
    if (!a.is_array() || axes.size() != a.size() || axes.empty()) {
      throw ValueError(where + ": '" + key + "' = " + value.dump() +
                       ": 'axis' must be an integer or a list of integers");
    }
    return layers::Axes(axes);
  };
  namespace C = constraints;
  const std::string& cls = n.class_name;
  if (value.is_string()) return rule_located(where, key, value, [&] { return C::get(cls); });
  if (cls == "MaxNorm" || cls == "max_norm") {
    only_keys(n, {"max_value", "axis"}, where, key, value);
    return C::MaxNorm({.max_value = num("max_value", 2.0), .axis = axis()});
  }
  if (cls == "MinMaxNorm" || cls == "min_max_norm") {
    only_keys(n, {"min_value", "max_value", "rate", "axis"}, where, key, value);
    return C::MinMaxNorm({.min_value = num("min_value", 0.0),
                          .max_value = num("max_value", 1.0),
                          .rate = num("rate", 1.0),
                          .axis = axis()});
  }
  if (cls == "NonNeg" || cls == "non_neg") {
    only_keys(n, {}, where, key, value);
    return C::NonNeg();
  }
  if (cls == "UnitNorm" || cls == "unit_norm") {
    only_keys(n, {"axis"}, where, key, value);
    return C::UnitNorm({.axis = axis()});
  }
  throw NotImplementedError(where + ": '" + key + "' = " + value.dump() +
                            " is not supported (constraint class '" + cls +
                            "'; Strata has MaxNorm, MinMaxNorm, NonNeg and UnitNorm)");
}

}  // namespace strata::io
