#include "io/op_layer_config.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/error.h"
#include "layers/core/op_layer.h"

namespace strata::io {
namespace {

using layers::ConfigValue;
using layers::OpArgument;
using layers::OpAttributes;

bool is_tensor_ref(const json& v) {
  return v.is_object() && v.value("class_name", "") == "__keras_tensor__";
}

ConfigValue attribute(const json& v, const std::string& where) {
  if (v.is_null()) return {};
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    bool ints = true, numbers = true;
    for (const auto& e : v) {
      ints = ints && (e.is_number_integer() || e.is_null());
      numbers = numbers && e.is_number();
    }
    if (ints) {
      std::vector<std::int64_t> out;
      for (const auto& e : v) out.push_back(e.is_null() ? -1 : e.get<std::int64_t>());  // None in a newshape
      return out;
    }
    if (numbers) return v.get<std::vector<double>>();
  }
  throw NotImplementedError(where + ": argument " + v.dump() + " is not supported");
}

// A NumPy constant: {"class_name": "__numpy__", "config": {"value": nested lists, "dtype"}}.
OpArgument numpy_argument(const json& v, const std::string& where) {
  OpArgument a;
  a.kind = OpArgument::Kind::array;
  const json& value = v.at("config").at("value");
  a.dtype = v.at("config").value("dtype", "float32");
  std::function<void(const json&, std::size_t)> walk = [&](const json& e, std::size_t depth) {
    if (e.is_array()) {
      if (a.shape.size() == depth) a.shape.push_back(static_cast<std::int64_t>(e.size()));
      for (const auto& x : e) walk(x, depth + 1);
    } else if (e.is_number() || e.is_boolean()) {
      a.values.push_back(e.is_boolean() ? (e.get<bool>() ? 1.0 : 0.0) : e.get<double>());
    } else {
      throw NotImplementedError(where + ": NumPy constant " + v.dump().substr(0, 200) + " is not supported");
    }
  };
  walk(value, 0);
  return a;
}

// [[0, 0], [1, 2]]: a non-empty list of integer lists.
bool is_nested_int_list(const json& v) {
  return v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), [](const json& row) {
    return row.is_array() && std::all_of(row.begin(), row.end(), [](const json& e) { return e.is_number_integer(); });
  });
}

bool is_slice(const json& v) { return v.is_object() && v.value("class_name", "") == "__slice__"; }

// GetItem's key: an int, a slice, None (a new axis), Ellipsis, or a list of them (axis by
// axis from the batch axis).
OpArgument index_argument(const json& v, const std::string& where) {
  OpArgument a;
  a.kind = OpArgument::Kind::index;
  a.bare_key = !v.is_array();
  auto optional_int = [&](const json& c, const char* k) -> std::optional<std::int64_t> {
    if (!c.contains(k) || c[k].is_null()) return std::nullopt;
    if (!c[k].is_number_integer()) throw NotImplementedError(where + ": slice " + c.dump() + " is not supported");
    return c[k].get<std::int64_t>();
  };
  for (const auto& e : a.bare_key ? json::array({v}) : v) {
    layers::IndexEntry entry;
    using K = layers::IndexEntry::Kind;
    if (e.is_number_integer()) {
      entry.kind = K::integer;
      entry.index = e.get<std::int64_t>();
    } else if (e.is_null()) {
      entry.kind = K::new_axis;
    } else if (e.is_object() && e.value("class_name", "") == "__ellipsis__") {
      entry.kind = K::ellipsis;
    } else if (is_slice(e)) {
      const json c = e.value("config", json::object());
      entry.start = optional_int(c, "start");
      entry.stop = optional_int(c, "stop");
      entry.step = optional_int(c, "step");
    } else {
      throw NotImplementedError(where + ": index entry " + e.dump() +
                                " is not supported (integers, slices, None and Ellipsis are; not tensors)");
    }
    a.key.push_back(entry);
  }
  return a;
}

std::vector<OpArgument> keras3_arguments(const json& args, const std::string& where, const std::string& op) {
  std::vector<OpArgument> out;
  int next_input = 0;
  for (const auto& v : args) {
    if (op == "GetItem" && !out.empty()) {
      out.push_back(index_argument(v, where));
    } else if (is_tensor_ref(v)) {
      out.push_back(OpArgument::tensor(next_input++));
    } else if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), is_tensor_ref)) {
      OpArgument a;
      a.kind = OpArgument::Kind::tensor_list;
      a.first_input = next_input;
      a.count = static_cast<int>(v.size());
      next_input += a.count;
      out.push_back(a);
    } else if (v.is_null()) {
      OpArgument a;
      a.kind = OpArgument::Kind::none;
      out.push_back(a);
    } else if (v.is_string() && op == "Rearrange") {  // its pattern; no other operation reads a string
      OpArgument a;
      a.kind = OpArgument::Kind::text;
      a.text = v.get<std::string>();
      out.push_back(a);
    } else if (v.is_number() || v.is_boolean()) {
      out.push_back(OpArgument::constant(v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>()));
    } else if (v.is_array() && (v.empty() || std::any_of(v.begin(), v.end(), [](const json& e) {
                                   return e.is_number_integer();
                                 })) &&
               std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number_integer() || e.is_null(); })) {
      OpArgument a;  // a list of integers: Slice's start_indices; ScaleAndTranslate's output_shape (None, 12, 6, 3)
      a.kind = OpArgument::Kind::integers;
      for (const auto& e : v)
        a.values.push_back(e.is_null() ? std::nan("") : static_cast<double>(e.get<std::int64_t>()));
      out.push_back(a);
    } else if (v.is_object() && v.value("class_name", "") == "__numpy__") {
      out.push_back(numpy_argument(v, where));
    } else {
      throw NotImplementedError(where + ": call argument " + v.dump().substr(0, 200) + " is not supported");
    }
  }
  return out;
}

// tf.keras TFOpLambda "function" -> (Keras 3 operation, module).
const std::map<std::string, std::pair<std::string, std::string>>& tf_functions() {
  static const std::map<std::string, std::pair<std::string, std::string>> m = {
      {"__operators__.add", {"Add", "keras.src.ops.numpy"}},
      {"math.add", {"Add", "keras.src.ops.numpy"}},
      {"math.subtract", {"Subtract", "keras.src.ops.numpy"}},
      {"math.multiply", {"Multiply", "keras.src.ops.numpy"}},
      {"math.truediv", {"TrueDivide", "keras.src.ops.numpy"}},
      {"math.divide", {"Divide", "keras.src.ops.numpy"}},
      {"math.maximum", {"Maximum", "keras.src.ops.numpy"}},
      {"math.minimum", {"Minimum", "keras.src.ops.numpy"}},
      {"math.reduce_mean", {"Mean", "keras.src.ops.numpy"}},
      {"math.reduce_sum", {"Sum", "keras.src.ops.numpy"}},
      {"math.reduce_max", {"Max", "keras.src.ops.numpy"}},
      {"nn.relu", {"Relu", "keras.src.ops.nn"}},
      {"nn.relu6", {"Relu6", "keras.src.ops.nn"}},
      {"math.sigmoid", {"Sigmoid", "keras.src.ops.nn"}},
  };
  return m;
}

bool is_triple(const json& v) {
  return v.is_array() && v.size() >= 3 && v[0].is_string() && v[1].is_number_integer() &&
         v[2].is_number_integer();
}

// ["layer", node, index(, kwargs)] or tf.keras's ["_CONSTANT_VALUE", -1, value, kwargs].
bool is_call(const json& v) {
  return is_triple(v) || (v.is_array() && v.size() >= 3 && v[0] == "_CONSTANT_VALUE");
}

Layer tf_op_lambda(const json& entry, const json& config, const std::string& name,
                   const std::string& where) {
  const std::string fn = config.value("function", "");
  auto it = tf_functions().find(fn);
  if (it == tf_functions().end()) {
    std::string known;
    for (const auto& [f, op] : tf_functions()) known += (known.empty() ? "" : ", ") + f;
    throw NotImplementedError(where + ": TFOpLambda function '" + fn +
                              "' is not supported; supported: " + known);
  }
  const json& nodes = entry.value("inbound_nodes", json::array());
  // tf.keras writes the call as a bare ["layer", node, index, kwargs] or inside a list;
  // a constant first operand (1.0 - x) as ["_CONSTANT_VALUE", -1, 1.0, {"y": tensor}].
  const bool bare = nodes.size() == 1 && is_call(nodes[0]);
  if (!bare && (nodes.size() != 1 || !nodes[0].is_array() || nodes[0].size() != 1 || !is_call(nodes[0][0]))) {
    throw NotImplementedError(where + ": a TFOpLambda called other than once is not supported");
  }
  const json& call = bare ? nodes[0] : nodes[0][0];
  const json kwargs = call.size() > 3 && call[3].is_object() ? call[3] : json::object();
  const bool constant_first = call[0] == "_CONSTANT_VALUE";
  if (constant_first && !call[2].is_number())
    throw NotImplementedError(where + ": constant " + call[2].dump() + " is not supported");
  std::vector<OpArgument> args{constant_first ? OpArgument::constant(call[2].get<double>()) : OpArgument::tensor(0)};
  OpAttributes attrs;
  for (auto kv = kwargs.begin(); kv != kwargs.end(); ++kv) {
    if (kv.key() == "name") continue;
    if (kv.key() == "y") {
      if (is_triple(kv.value())) {
        args.push_back(OpArgument::tensor(constant_first ? 0 : 1));
      } else if (kv.value().is_number()) {
        args.push_back(OpArgument::constant(kv.value().get<double>()));
      } else {
        throw NotImplementedError(where + ": argument y = " + kv.value().dump() + " is not supported");
      }
    } else {
      attrs[kv.key() == "shape" ? "newshape" : kv.key()] = attribute(kv.value(), where);
    }
  }
  return layers::OpLayer(it->second.first, it->second.second, std::move(args), std::move(attrs), name);
}

json nested_values(const OpArgument& a, std::size_t depth, std::size_t& next) {
  if (depth == a.shape.size()) return a.values.at(next++);
  json out = json::array();
  for (std::int64_t i = 0; i < a.shape[depth]; ++i) out.push_back(nested_values(a, depth + 1, next));
  return out;
}

json attribute_json(const ConfigValue& v) {
  return std::visit(
      [](const auto& x) -> json {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, Initializer> || std::is_same_v<T, Layer> ||
                             std::is_same_v<T, Regularizer> || std::is_same_v<T, Constraint>) {
          return nullptr;  // never an operation's argument
        } else {
          return x;
        }
      },
      v);
}

}  // namespace

json op_entry_to_tf_op_lambda(const json& e) {
  const std::string op = e.value("class_name", "");
  const json config = e.value("config", json::object());
  const std::string name = config.value("name", "");
  std::string function;
  for (const auto& [fn, target] : tf_functions()) {
    if (target.first == op && (function.empty() || fn.rfind("math.", 0) == 0)) function = fn;
  }
  if (op == "Add") function = "__operators__.add";
  const json& nodes = e.value("inbound_nodes", json::array());
  const json args = nodes.size() == 1 ? nodes[0].value("args", json::array()) : json::array();
  auto triple = [](const json& ref) {
    const json& h = ref["config"]["keras_history"];
    return json::array({h[0], h[1], h[2]});
  };
  if (function.empty() || args.empty() || !is_tensor_ref(args[0]) || args.size() > 2) {
    throw NotImplementedError("operation " + op + " '" + name +
                              "' has no tf.keras form to save in an .h5 file; save the model as .keras");
  }
  json kwargs = json::object();
  if (args.size() == 2) {
    if (is_tensor_ref(args[1])) {
      kwargs["y"] = triple(args[1]);
    } else if (args[1].is_number()) {
      kwargs["y"] = args[1];
    } else {
      throw NotImplementedError("operation " + op + " '" + name +
                                "': its constant argument has no tf.keras form; save the model as .keras");
    }
  }
  // Only what the TensorFlow function takes: reductions' axis and keepdims (Max's
  // "initial", null here, has no TF counterpart).
  for (const char* key : {"axis", "keepdims"})
    if (config.contains(key)) kwargs[key] = config[key];
  if (config.contains("initial") && !config["initial"].is_null()) {
    throw NotImplementedError("operation " + op + " '" + name +
                              "': 'initial' has no tf.keras form; save the model as .keras");
  }
  kwargs["name"] = nullptr;
  json call = triple(args[0]);
  call.push_back(kwargs);
  // tf.keras writes a TFOpLambda's call bare: [["layer", node, index, kwargs]].
  return json{{"class_name", "TFOpLambda"},
              {"config", json{{"name", name}, {"trainable", true}, {"dtype", "float32"}, {"function", function}}},
              {"name", name},
              {"inbound_nodes", json::array({call})}};
}

bool is_op_entry(const json& entry) {
  if (!entry.is_object()) return false;
  const std::string cls = entry.value("class_name", "");
  if (cls == "TFOpLambda") return true;
  if (entry.contains("module")) {  // null for a user's class Keras imports from no module
    const std::string module = entry["module"].is_string() ? entry["module"].get<std::string>() : "";
    return module.rfind("keras.src.ops.", 0) == 0 || module.rfind("keras.ops", 0) == 0;
  }
  // Keras 3's legacy .h5 drops the module: an operation's config has no "trainable"
  // (every layer's has; Cast's does have a "dtype"), and its node is Keras 3's
  // {"args", "kwargs"}.
  const json config = entry.value("config", json::object());
  const json nodes = entry.value("inbound_nodes", json::array());
  return layers::is_supported_op(cls) && config.is_object() && !config.contains("trainable") &&
         nodes.size() == 1 && nodes[0].is_object();
}

Layer op_layer_from_entry(const json& entry, const ConfigContext& ctx) {
  const std::string cls = entry.value("class_name", "");
  const json config = entry.value("config", json::object());
  const std::string name = config.value("name", entry.value("name", ""));
  std::string where = "operation " + cls + " '" + name + "'";
  if (!ctx.source.empty()) where += " in " + ctx.source;
  if (cls == "TFOpLambda") return tf_op_lambda(entry, config, name, where);
  const json& nodes = entry.value("inbound_nodes", json::array());
  if (nodes.size() != 1 || !nodes[0].is_object()) {
    throw NotImplementedError(where + ": an operation saved with " + std::to_string(nodes.size()) +
                              " calls is not supported (Keras saves each call as its own entry)");
  }
  OpAttributes call_kwargs;
  std::vector<OpArgument> keyword_arrays;  // NumPy constants given by keyword, after the positional arguments
  const json kwargs = nodes[0].value("kwargs", json::object());
  for (auto kv = kwargs.begin(); kv != kwargs.end(); ++kv) {
    if (!layers::accepts_call_kwarg(cls, kv.key())) {
      throw NotImplementedError(where + ": keyword argument " + kv.key() + "=" + kv.value().dump().substr(0, 200) +
                                " in the call is not supported");
    }
    if (is_tensor_ref(kv.value())) {
      throw NotImplementedError(where + ": keyword argument " + kv.key() +
                                " given a tensor of the model is not supported (None or a NumPy constant is)");
    }
    if (kv.value().is_object() && kv.value().value("class_name", "") == "__numpy__") {
      keyword_arrays.push_back(numpy_argument(kv.value(), where));
      keyword_arrays.back().keyword = kv.key();
      continue;
    }
    call_kwargs[kv.key()] = attribute(kv.value(), where);
  }
  OpAttributes attrs;
  layers::OpNestedLists nested;
  for (auto kv = config.begin(); kv != config.end(); ++kv) {
    if (kv.key() == "name") continue;
    if (is_nested_int_list(kv.value())) {
      nested[kv.key()] = kv.value().get<std::vector<std::vector<std::int64_t>>>();
    } else {
      attrs[kv.key()] = attribute(kv.value(), where);
    }
  }
  // Keras 3's legacy .h5 drops the module; Strata writes it back as Keras defines it.
  const std::string module = entry.value("module", "");
  std::vector<OpArgument> arguments = keras3_arguments(nodes[0].value("args", json::array()), where, cls);
  arguments.insert(arguments.end(), keyword_arrays.begin(), keyword_arrays.end());
  return layers::OpLayer(cls, module.empty() ? layers::keras_module_of(cls) : module, std::move(arguments),
                         std::move(attrs), name, std::move(call_kwargs), std::move(nested));
}

std::vector<json> tf_op_lambda_tensors(const json& node) {
  std::vector<json> out;
  if (!node.is_array()) return out;
  const json calls = is_call(node) ? json::array({node}) : node;
  for (const auto& call : calls) {
    if (!is_call(call)) continue;
    if (call[0] != "_CONSTANT_VALUE") out.push_back(json::array({call[0], call[1], call[2]}));
    if (call.size() < 4 || !call[3].is_object()) continue;
    for (auto kv = call[3].begin(); kv != call[3].end(); ++kv)
      if (is_triple(kv.value())) out.push_back(kv.value());
  }
  return out;
}

bool tf_op_lambda_supported(const std::string& function) { return tf_functions().count(function) > 0; }

bool is_op_layer(const Layer& layer) {
  return dynamic_cast<const layers::OpLayerImpl*>(&layer.impl()) != nullptr;
}

json op_layer_object(const Layer& layer) {
  const auto& op = dynamic_cast<const layers::OpLayerImpl&>(layer.impl());
  json config{{"name", op.name}};
  for (const auto& [key, value] : op.attributes) config[key] = attribute_json(value);
  for (const auto& [key, rows] : op.nested_attributes) config[key] = rows;
  return json{{"module", op.module},
              {"class_name", op.class_name()},
              {"config", config},
              {"registered_name", op.class_name()}};
}

json op_layer_args(const Layer& layer, const std::function<json(std::size_t)>& tensor_ref) {
  const auto& op = dynamic_cast<const layers::OpLayerImpl&>(layer.impl());
  json args = json::array();
  for (const auto& a : op.arguments) {
    if (!a.keyword.empty()) continue;  // op_layer_kwargs'
    switch (a.kind) {
      case OpArgument::Kind::tensor:
        args.push_back(tensor_ref(static_cast<std::size_t>(a.first_input)));
        break;
      case OpArgument::Kind::tensor_list: {
        json list = json::array();
        for (int i = 0; i < a.count; ++i) list.push_back(tensor_ref(static_cast<std::size_t>(a.first_input + i)));
        args.push_back(list);
        break;
      }
      case OpArgument::Kind::number:
        args.push_back(a.number);
        break;
      case OpArgument::Kind::none:
        args.push_back(nullptr);
        break;
      case OpArgument::Kind::text:
        args.push_back(a.text);
        break;
      case OpArgument::Kind::index: {
        json key = json::array();
        for (const auto& e : a.key) {
          using K = layers::IndexEntry::Kind;
          if (e.kind != K::slice) {
            key.push_back(e.kind == K::integer    ? json(e.index)
                          : e.kind == K::new_axis ? json(nullptr)
                                                  : json{{"class_name", "__ellipsis__"}, {"config", json::object()}});
            continue;
          }
          auto opt = [](const std::optional<std::int64_t>& v) { return v ? json(*v) : json(nullptr); };
          key.push_back(json{{"class_name", "__slice__"},
                             {"config", json{{"start", opt(e.start)}, {"stop", opt(e.stop)}, {"step", opt(e.step)}}}});
        }
        args.push_back(a.bare_key ? key[0] : key);
        break;
      }
      case OpArgument::Kind::integers: {
        json list = json::array();
        for (double v : a.values) list.push_back(std::isnan(v) ? json(nullptr) : json(static_cast<std::int64_t>(v)));
        args.push_back(list);
        break;
      }
      case OpArgument::Kind::array: {
        std::size_t next = 0;
        args.push_back(json{{"class_name", "__numpy__"},
                            {"config", json{{"value", nested_values(a, 0, next)}, {"dtype", a.dtype}}}});
        break;
      }
    }
  }
  return args;
}

json op_layer_kwargs(const Layer& layer) {
  const auto& op = dynamic_cast<const layers::OpLayerImpl&>(layer.impl());
  json kwargs = json::object();
  for (const auto& [key, value] : op.call_kwargs) kwargs[key] = attribute_json(value);
  for (const auto& a : op.arguments) {
    if (a.keyword.empty()) continue;
    std::size_t next = 0;
    kwargs[a.keyword] = json{{"class_name", "__numpy__"},
                             {"config", json{{"value", nested_values(a, 0, next)}, {"dtype", a.dtype}}}};
  }
  return kwargs;
}

}  // namespace strata::io
