#include "io/model_config.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "core/error.h"
#include "io/custom_model.h"
#include "io/op_layer_config.h"
#include "layers/call_tensors.h"
#include "layers/keras_class.h"
#include "layers/core/input_layer.h"
#include "models/sequential.h"

namespace strata::io {

namespace {

json dtype_policy() {
  return json{{"module", "keras"},
              {"class_name", "DTypePolicy"},
              {"config", json{{"name", "float32"}}},
              {"registered_name", nullptr}};
}

json shapes_json(const std::vector<KerasTensor>& ins) {
  if (ins.size() == 1) return shape_to_json(ins[0].shape());
  json out = json::array();
  for (const auto& t : ins) out.push_back(shape_to_json(t.shape()));
  return out;
}

// Keras classes whose call takes its input tensors as separate arguments,
// call(query, value, key), where others take one list: their nodes are written
// {"args": [q, v, k]} (Keras 3) or [[q, 0, 0, {"value": v, "key": k}]] (tf.keras).
bool takes_separate_tensors(const std::string& class_name) {
  return class_name == "MultiHeadAttention" || class_name == "GroupQueryAttention" ||
         class_name == "GroupedQueryAttention";
}

// Recurrent layers (layers/recurrent/initial_state.h), whose Keras 3 call takes the
// initial states as initial_state=[...].
bool takes_initial_state(const Layer& layer) {
  for (const auto& a : tensor_arguments_of(layer.impl())) {
    if (a.keyword == "initial_state") return true;
  }
  return false;
}

// The keyword arguments that carry such a layer's tensors, in call order.
const std::vector<std::string>& tensor_keywords() {
  static const std::vector<std::string> keywords{"query", "value", "key"};
  return keywords;
}

// The object wrapper of a layer (not a model) in Keras 3's schema.
json layer_object(const Layer& layer, const std::vector<KerasTensor>* first_inputs) {
  const std::shared_ptr<const layers::KerasClass> k = layers::find_keras_class(layer.class_name());
  // A class registered under a package is written as Keras writes one: its module (null
  // when none is given) and "package>ClassName", by which Keras looks it up.
  const std::string registered = registered_name_of(layer.class_name());
  json obj{{"module", !k ? json("keras.layers") : k->module.empty() ? json(nullptr) : json(k->module)},
           {"class_name", layer.class_name()},
           {"config", layer_config(layer)},
           {"registered_name", !registered.empty()                ? json(registered)
                               : k && k->module != "keras.layers" ? json(layer.class_name())
                                                                   : json(nullptr)}};
  if (first_inputs && !first_inputs->empty() && layer.class_name() != "InputLayer") {
    if (takes_separate_tensors(layer.class_name())) {
      // Its build takes a shape per tensor: {"query_shape": ..., "value_shape": ...}.
      json shapes = json::object();
      const std::vector<std::string> names{"query_shape", "value_shape", "key_shape"};
      for (std::size_t i = 0; i < first_inputs->size() && i < names.size(); ++i) {
        shapes[names[i]] = shape_to_json((*first_inputs)[i].shape());
      }
      obj["build_config"] = json{{"shapes_dict", shapes}};
    } else {
      obj["build_config"] = json{{"input_shape", shapes_json(*first_inputs)}};
    }
  }
  return obj;
}

json object_of(const Layer& layer, const std::vector<KerasTensor>* first_inputs) {
  if (is_op_layer(layer)) return op_layer_object(layer);
  if (is_model_class(layer.class_name()))
    return model_to_config(Model(std::static_pointer_cast<ModelImpl>(layer.shared_impl())));
  return layer_object(layer, first_inputs);
}

json triple(const std::string& name, int node, int index) {
  return json::array({name, node, index});
}

// A call's kwargs as Keras writes them: its flags, and its tensor arguments under their
// keywords (Attention's mask=[q_mask, v_mask] a list, null for a mask not given).
template <class Ref>
json node_kwargs(const Layer& layer, const CallArguments& arguments, const CallInputs<KerasTensor>& call,
                 const Ref& tensor_ref) {
  json kwargs = json::object();
  for (const auto& [argument, value] : arguments) {
    if (!is_tensor_argument(layer.impl(), argument)) kwargs[argument] = value;
  }
  const std::vector<TensorArgument> described = tensor_arguments_of(layer.impl());
  auto list_of = [&](const TensorArgument& a) -> json& {
    json& list = kwargs[a.keyword];
    if (!list.is_array()) {  // as long as the layer's list: every position it describes
      list = json::array();
      for (const auto& d : described) {
        if (d.keyword == a.keyword) {
          while (static_cast<int>(list.size()) <= d.list_index) list.push_back(nullptr);
        }
      }
    }
    return list;
  };
  for (const auto& entry : call.tensors) {
    // (Not a structured binding: clang 14 cannot capture one in the lambda.)
    const auto& name = entry.first;
    const auto& tensor = entry.second;
    const auto a = std::find_if(described.begin(), described.end(), [&](const auto& d) { return d.name == name; });
    if (a->list_index < 0) {
      kwargs[a->keyword] = tensor_ref(tensor);
      continue;
    }
    list_of(*a)[static_cast<std::size_t>(a->list_index)] = tensor_ref(tensor);
  }
  // A list given with None entries only (Attention's mask=[None, None]) is written too:
  // unlike no mask at all, it replaces the inputs' masks.
  for (const auto& d : described) {
    if (d.list_index >= 0 && arguments.count(d.name)) list_of(d);
  }
  return kwargs;
}

json functional_config(const Model& model) {
  const ModelImpl& m = model.model();
  // Node index of each call: its position among the calls of its layer in this model.
  std::unordered_map<const LayerCall*, int> node_of;
  std::map<const LayerImpl*, std::vector<const LayerCall*>> calls_of;
  for (const auto& in : m.inputs) {
    node_of[in.call().get()] = 0;
    calls_of[&in.call()->layer.impl()].push_back(in.call().get());
  }
  for (const auto& c : m.calls) {
    auto& list = calls_of[&c->layer.impl()];
    node_of[c.get()] = static_cast<int>(list.size());
    list.push_back(c.get());
  }
  auto tensor_ref = [&](const KerasTensor& t) {
    return json{{"class_name", "__keras_tensor__"},
                {"config", json{{"shape", shape_to_json(t.shape())},
                                {"dtype", to_string(t.dtype())},
                                {"keras_history", triple(t.call()->layer.name(),
                                                         node_of.at(t.call().get()), t.index())}}}};
  };
  // Calls a mask reaches, found only where a recurrent layer takes its states as inputs.
  std::optional<std::set<const LayerCall*>> masked;
  json layers = json::array();
  for (const auto& layer : keras_layer_order(model)) {
    const auto& calls = calls_of[&layer.impl()];
    // build_config describes the layer's own inputs, not the masks passed with its call.
    std::vector<KerasTensor> first_inputs;
    if (!calls.empty()) first_inputs = split_call_inputs(layer.impl(), calls[0]->arguments, calls[0]->inputs).inputs;
    // A recurrent layer builds from its sequence's shape (Keras 3's build takes the states'
    // apart, as initial_state_shape).
    if (takes_initial_state(layer) && first_inputs.size() > 1) first_inputs.resize(1);
    json obj = object_of(layer, calls.empty() ? nullptr : &first_inputs);
    obj["name"] = layer.name();
    json nodes = json::array();
    for (const LayerCall* c : calls) {
      if (c->inputs.empty()) continue;  // an InputLayer's own node
      const CallInputs<KerasTensor> call = split_call_inputs(layer.impl(), c->arguments, c->inputs);
      json args = json::array();
      if (is_op_layer(layer)) {
        args = op_layer_args(layer, [&](std::size_t i) { return tensor_ref(c->inputs.at(i)); });
      } else if (call.inputs.size() == 1 || takes_separate_tensors(layer.class_name())) {
        for (const auto& t : call.inputs) args.push_back(tensor_ref(t));
      } else if (takes_initial_state(layer)) {
        args.push_back(tensor_ref(call.inputs[0]));  // the states follow as initial_state=[...]
      } else {
        json list = json::array();
        for (const auto& t : call.inputs) list.push_back(tensor_ref(t));
        args.push_back(list);
      }
      json kwargs =
          is_op_layer(layer) ? op_layer_kwargs(layer) : node_kwargs(layer, c->arguments, call, tensor_ref);
      if (!is_op_layer(layer) && call.inputs.size() > 1 && takes_initial_state(layer)) {
        // layer({x, h, c}): Keras 3 takes the states as initial_state=[h, c], and then gives
        // the layer no mask from x, where Strata's call (tf.keras's rule) applies one.
        if (!masked) masked = m.masked_calls();
        const bool mask_given = c->arguments.count("mask") && c->arguments.at("mask");  // mask= applies in both
        if (masked->count(c) && !mask_given) {
          throw NotImplementedError(
              layer.class_name() + " '" + layer.name() + "' takes its initial states as inputs of a masked sequence, " +
              "which Keras 3 cannot express: called with initial_state=[...] it applies no mask. Pass the states as " +
              "the call's initial_state arguments (call_with({x, h, c}, {{\"initial_state_0\", true}, ...})) and " +
              "any mask as mask=, or save the model without the mask");
        }
        json states = json::array();
        for (std::size_t i = 1; i < call.inputs.size(); ++i) states.push_back(tensor_ref(call.inputs[i]));
        kwargs["initial_state"] = states;
      }
      nodes.push_back(json{{"args", args}, {"kwargs", kwargs}});
    }
    obj["inbound_nodes"] = nodes;
    layers.push_back(obj);
  }
  auto refs = [&](const std::vector<KerasTensor>& ts) {
    if (ts.size() == 1)
      return triple(ts[0].call()->layer.name(), node_of.at(ts[0].call().get()), ts[0].index());
    json out = json::array();
    for (const auto& t : ts)
      out.push_back(triple(t.call()->layer.name(), node_of.at(t.call().get()), t.index()));
    return out;
  };
  return json{{"name", m.name},
              {"trainable", m.trainable},
              {"layers", layers},
              {"input_layers", refs(m.inputs)},
              {"output_layers", refs(m.outputs)}};
}

json sequential_config(const SequentialImpl& s) {
  json layers = json::array();
  if (s.input_layer.defined()) layers.push_back(layer_object(s.input_layer, nullptr));
  for (std::size_t i = 0; i < s.stack.size(); ++i) {
    const Layer& l = s.stack[i];
    const std::vector<KerasTensor>* first = nullptr;
    for (const auto& c : s.calls) {
      if (c->layer == l) {
        first = &c->inputs;
        break;
      }
    }
    layers.push_back(object_of(l, first));
  }
  json cfg{
      {"name", s.name}, {"trainable", s.trainable}, {"dtype", dtype_policy()}, {"layers", layers}};
  if (!s.inputs.empty()) cfg["build_input_shape"] = shape_to_json(s.inputs[0].shape());
  return cfg;
}

// --- reading ------------------------------------------------------------------------------

// Keras 2 triples ["name", node, tensor(, kwargs)] and Keras 3 bare triples / lists.
struct TensorRef {
  std::string layer;
  int node = 0;
  int index = 0;
};

TensorRef ref_from_triple(const json& t, const std::string& where) {
  if (!t.is_array() || t.size() < 3 || !t[0].is_string() || !t[1].is_number_integer() ||
      !t[2].is_number_integer()) {
    throw ValueError(where + ": invalid tensor reference " + t.dump());
  }
  return {t[0].get<std::string>(), t[1].get<int>(), t[2].get<int>()};
}

std::vector<TensorRef> refs_from_io_list(const json& v, const std::string& where) {
  std::vector<TensorRef> out;
  if (v.is_array() && !v.empty() && v[0].is_string()) return {ref_from_triple(v, where)};
  if (v.is_object()) {
    for (auto it = v.begin(); it != v.end(); ++it) {
      for (const auto& r : refs_from_io_list(it.value(), where)) out.push_back(r);
    }
    return out;
  }
  if (!v.is_array()) throw ValueError(where + ": invalid input/output list " + v.dump());
  for (const auto& t : v) {
    for (const auto& r : refs_from_io_list(t, where)) out.push_back(r);
  }
  return out;
}

void collect_keras3_tensors(const json& v, std::vector<TensorRef>& out, const std::string& where) {
  if (v.is_object()) {
    if (v.value("class_name", "") == "__keras_tensor__") {
      out.push_back(ref_from_triple(require_key(require_key(v, "config", where), "keras_history", where), where));
      return;
    }
    for (auto it = v.begin(); it != v.end(); ++it) collect_keras3_tensors(it.value(), out, where);
  } else if (v.is_array()) {
    for (const auto& x : v) collect_keras3_tensors(x, out, where);
  }
}

// Moves the tensors of `layer`'s tensor arguments (call_tensors.h: masks) out of a node's
// kwargs into `out`, in the layer's order, flagging each in `arguments`. Keras 3 refers
// to them as __keras_tensor__ objects, tf.keras as ["layer", node, index] triples;
// Attention's mask=[q_mask, v_mask] is a list of them, null for a mask not given.
void take_tensor_arguments(json& kwargs, const Layer& layer, bool keras3, std::vector<TensorRef>& out,
                           CallArguments& arguments, const std::string& where) {
  if (!kwargs.is_object()) return;
  std::set<std::string> keywords;
  for (const auto& a : tensor_arguments_of(layer.impl())) {
    auto it = kwargs.find(a.keyword);
    if (it == kwargs.end()) continue;
    keywords.insert(a.keyword);
    const json* v = &*it;
    // A list's one tensor given bare (gru(x, initial_state=h)) is its first entry.
    const bool bare = !v->is_array() || (!keras3 && !v->empty() && (*v)[0].is_string());
    if (a.list_index >= 0 && !(bare && a.list_index == 0)) {
      if (bare || static_cast<int>(v->size()) <= a.list_index) continue;
      v = &(*v)[static_cast<std::size_t>(a.list_index)];
      // A None in a list given (mask=[None, v_mask]) is recorded: the list replaces the
      // inputs' masks even when it holds no tensor.
      if (v->is_null()) arguments[a.name] = false;
    }
    if (v->is_null()) continue;
    if (keras3) {
      std::vector<TensorRef> found;
      collect_keras3_tensors(*v, found, where);
      if (found.empty() && v->is_object() && v->value("class_name", "") == "__numpy__") {
        // Keras saves an array given with the call inside the node; Strata's calls take
        // tensors of the model only.
        throw NotImplementedError(where + ": '" + a.keyword +
                                  "' given as a NumPy array, saved in the call, is not supported: give it as an "
                                  "Input of the model");
      }
      if (found.size() != 1) throw ValueError(where + ": '" + a.keyword + "' is not one tensor: " + v->dump());
      out.push_back(found[0]);
    } else {
      out.push_back(ref_from_triple(*v, where));
    }
    arguments[a.name] = true;
  }
  // What remains of a list is what Strata does not model (Attention's third mask, unused).
  for (const auto& k : keywords) {
    json& v = kwargs[k];
    if (!v.is_array() || v.empty() || v[0].is_string()) {
      kwargs.erase(k);
      continue;
    }
    for (const auto& a : tensor_arguments_of(layer.impl())) {
      if (a.keyword == k && a.list_index >= 0 && a.list_index < static_cast<int>(v.size())) {
        v[static_cast<std::size_t>(a.list_index)] = nullptr;
      }
    }
  }
}

// Whether `entry` is an Attention or AdditiveAttention whose config sets tf.keras's
// deprecated `causal` to true; if so, `without` is the entry with the key removed. (A false
// one is left to the class's config reading, which takes false.)
bool legacy_causal_attention(const json& entry, json& without) {
  const std::string cls = entry.value("class_name", "");
  if (cls != "Attention" && cls != "AdditiveAttention") return false;
  const auto config = entry.find("config");
  if (config == entry.end() || !config->is_object() || !config->contains("causal")) return false;
  const json& causal = (*config)["causal"];
  if (!causal.is_boolean() || !causal.get<bool>()) return false;
  without = entry;
  without["config"].erase("causal");
  return true;
}

// The input tensors of one inbound node, in either dialect: the layer's own inputs, then
// the tensors passed as its call arguments (flagged in `arguments`).
// A layer that takes separate tensors (takes_separate_tensors) may get them by keyword:
// mha(x, value=y), mha(query=x, value=y, key=z).
std::vector<TensorRef> node_inputs(const json& node, const std::string& where, const Layer& layer,
                                   CallArguments& arguments) {
  const bool separate = takes_separate_tensors(layer.class_name());
  std::vector<TensorRef> out;
  if (node.is_object()) {  // Keras 3 {"args": [...], "kwargs": {...}}
    collect_keras3_tensors(node.value("args", json::array()), out, where);
    json kwargs = node.value("kwargs", json::object());
    if (separate && kwargs.is_object()) {
      for (const auto& keyword : tensor_keywords()) {
        if (!kwargs.contains(keyword)) continue;
        collect_keras3_tensors(kwargs[keyword], out, where);
        kwargs.erase(keyword);
      }
    }
    take_tensor_arguments(kwargs, layer, true, out, arguments, where);
    std::vector<TensorRef> in_kwargs;
    collect_keras3_tensors(kwargs, in_kwargs, where);
    if (!in_kwargs.empty()) {
      throw NotImplementedError(
          where + ": tensors passed as keyword arguments " + kwargs.dump().substr(0, 200) +
          " are not supported (" + layer.class_name() + " takes none, or not these)");
    }
    return out;
  }
  if (!node.is_array()) throw ValueError(where + ": invalid inbound node " + node.dump());
  // Keras 2: a list of ["layer", node, index, kwargs]; tf.keras's TFOpLambda writes one bare.
  if (!node.empty() && node[0].is_string()) return {ref_from_triple(node, where)};
  for (const auto& t : node) out.push_back(ref_from_triple(t, where));
  const bool has_kwargs = !node.empty() && node[0].is_array() && node[0].size() > 3 && node[0][3].is_object();
  // tf.keras's MultiHeadAttention: [["q", 0, 0, {"value": ["v", 0, 0], "key": ...}]].
  if (separate && node.size() == 1 && has_kwargs) {
    for (const auto& keyword : tensor_keywords()) {
      if (node[0][3].contains(keyword)) out.push_back(ref_from_triple(node[0][3][keyword], where));
    }
  }
  // Every reference carries the call's kwargs; the first one's are read.
  if (has_kwargs) {
    json kwargs = node[0][3];
    take_tensor_arguments(kwargs, layer, false, out, arguments, where);
  }
  return out;
}

// The call arguments of one inbound node that `layer` takes (Attention's
// use_causal_mask): Keras 3 keeps them in the node's "kwargs", Keras 2 in each input
// reference's fourth element. Others (training=..., which Strata decides per program)
// are left out as before; tensor arguments are node_inputs' to read.
CallArguments node_arguments(const json& node, const Layer& layer) {
  const json* kwargs = nullptr;
  if (node.is_object()) {
    auto it = node.find("kwargs");
    if (it != node.end()) kwargs = &*it;
  } else if (node.is_array() && !node.empty()) {
    const json& first = node[0].is_string() ? node : node[0];
    if (first.is_array() && first.size() > 3) kwargs = &first[3];
  }
  CallArguments out;
  if (!kwargs || !kwargs->is_object()) return out;
  for (const auto& name : layer.impl().call_argument_names()) {
    if (is_tensor_argument(layer.impl(), name)) continue;
    auto it = kwargs->find(name);
    if (it != kwargs->end() && it->is_boolean()) out[name] = it->get<bool>();
  }
  return out;
}

KerasTensor input_tensor(const Layer& input_layer) {
  const auto& in = static_cast<const InputLayerImpl&>(input_layer.impl());
  return KerasTensor(std::make_shared<LayerCall>(LayerCall{input_layer, {}, {in.spec}}), 0);
}

Layer any_layer_from_config(const json& entry, const ConfigContext& ctx) {
  const std::string cls = entry.value("class_name", "");
  if (is_model_class(cls)) {
    json e = entry;
    return model_from_config(e, ctx);
  }
  return layer_from_config(entry, ctx);
}

Model functional_from_config(const json& cfg, const ConfigContext& ctx) {
  const std::string model_name = cfg.value("name", "");
  const std::string where =
      "model '" + model_name + "'" + (ctx.source.empty() ? "" : " in '" + ctx.source + "'");
  const json& entries = require_key(cfg, "layers", where);
  if (!entries.is_array()) throw ValueError(where + ": 'layers' is not a list");
  struct Pending {
    Layer layer;
    std::vector<std::vector<TensorRef>> nodes;
    std::vector<CallArguments> arguments;  // one per node
    std::size_t done = 0;
  };
  std::vector<Pending> pending;
  std::map<std::string, std::size_t> index_of;
  std::map<std::string, std::vector<std::vector<KerasTensor>>> outputs;  // layer -> node -> tensors
  for (const auto& raw_entry : entries) {
    // Older tf.keras wrote Attention's and AdditiveAttention's `causal` in the config; it
    // applies a causal mask to every call, as use_causal_mask=True (tf.keras:
    // `self.causal or use_causal_mask`), which is how Strata records and writes it.
    json entry_copy;
    const bool causal_config = legacy_causal_attention(raw_entry, entry_copy);
    const json& entry = causal_config ? entry_copy : raw_entry;
    Layer layer = is_op_entry(entry) ? op_layer_from_entry(entry, ctx) : any_layer_from_config(entry, ctx);
    const std::string name = entry.contains("name") && entry["name"].is_string()
                                 ? entry["name"].get<std::string>()
                                 : layer.name();
    Pending p{layer, {}, {}, 0};
    // tf.keras's TFOpLambda keeps tensors among its keyword arguments too (y = b), and
    // writes its one call bare: ["a", 0, 0, {"y": ["b", 0, 0]}].
    const bool tf_op = entry.value("class_name", "") == "TFOpLambda";
    for (const auto& node : entry.value("inbound_nodes", json::array())) {
      p.arguments.push_back(node_arguments(node, layer));
      if (causal_config) p.arguments.back()["use_causal_mask"] = true;
      if (!tf_op) {
        p.nodes.push_back(node_inputs(node, where + " layer '" + name + "'", layer, p.arguments.back()));
        continue;
      }
      std::vector<TensorRef> refs;
      for (const auto& t : tf_op_lambda_tensors(node)) refs.push_back(ref_from_triple(t, where + " layer '" + name + "'"));
      p.nodes.push_back(refs);
    }
    if (layer.class_name() == "InputLayer") outputs[name].push_back({input_tensor(layer)});
    if (!index_of.emplace(name, pending.size()).second)
      throw ValueError(where + ": two layers named '" + name + "'");
    pending.push_back(std::move(p));
  }
  // Polar's, ViewAsComplex's and Eig's complex results are held as (real, imag) pairs along a last
  // axis (Strata has no complex dtype): only view_as_real reads them as Keras does; any other
  // reader, or the model's output, would take the pairs for values.
  const auto complex_producer = [&](const std::string& layer) -> std::string {
    const auto it = index_of.find(layer);
    if (it == index_of.end()) return {};
    const std::string cls = pending[it->second].layer.class_name();
    return cls == "Polar" || cls == "ViewAsComplex" || cls == "Eig" ? cls : std::string();
  };
  auto refuse_complex_reader = [&](const std::string& producer, const std::string& layer, const std::string& reader) {
    throw NotImplementedError(where + ": " + reader + " reads the complex result of " + producer + " '" + layer +
                              "', which Strata holds only for view_as_real (it has no complex dtype)");
  };
  for (const auto& p : pending)
    for (const auto& node : p.nodes)
      for (const auto& r : node) {
        const std::string producer = complex_producer(r.layer);
        if (!producer.empty() && p.layer.class_name() != "ViewAsReal")
          refuse_complex_reader(producer, r.layer, p.layer.class_name() + " '" + p.layer.name() + "'");
      }
  for (const auto& r : refs_from_io_list(cfg.value("output_layers", json::array()), where)) {
    const std::string producer = complex_producer(r.layer);
    if (!producer.empty()) refuse_complex_reader(producer, r.layer, "the model's output");
  }
  // tf.keras numbers the nodes of a nested model that has its own InputLayer from 1 (its
  // node 0, linking its own input to its output, is not saved); Keras 3 writes 0, and so
  // does Strata (Keras 3 reads its .h5 files; tf.keras cannot read them anyway).
  // A file's numbering shows in its references: a model called k times is referred to
  // as node k only when counting starts at 1.
  std::map<std::string, int> first_node;
  std::map<std::string, int> highest_ref;
  auto note_ref = [&](const TensorRef& r) {
    auto [it, fresh] = highest_ref.emplace(r.layer, r.node);
    if (!fresh) it->second = std::max(it->second, r.node);
  };
  for (const auto& p : pending)
    for (const auto& node : p.nodes)
      for (const auto& r : node) note_ref(r);
  for (const auto& r : refs_from_io_list(cfg.value("output_layers", json::array()), where)) note_ref(r);
  for (const auto& p : pending) {
    if (!is_model_class(p.layer.class_name())) continue;
    auto it = highest_ref.find(p.layer.name());
    if (it != highest_ref.end() && !p.nodes.empty() && it->second >= static_cast<int>(p.nodes.size()))
      first_node[p.layer.name()] = 1;
  }
  auto lookup = [&](const TensorRef& r, const std::string& reader) -> const KerasTensor* {
    auto it = outputs.find(r.layer);
    const int node = r.node - (first_node.count(r.layer) ? first_node.at(r.layer) : 0);
    if (it == outputs.end() || node < 0 || node >= static_cast<int>(it->second.size())) return nullptr;
    const auto& ts = it->second[static_cast<std::size_t>(node)];
    if (r.index < 0 || r.index >= static_cast<int>(ts.size())) {
      throw ValueError(where + ": layer '" + reader + "' reads output " + std::to_string(r.index) +
                       " of '" + r.layer + "', which has " + std::to_string(ts.size()));
    }
    return &ts[static_cast<std::size_t>(r.index)];
  };
  // Keras's order: repeatedly call every layer's next node whose inputs exist.
  bool progress = true;
  while (progress) {
    progress = false;
    for (auto& p : pending) {
      while (p.done < p.nodes.size()) {
        std::vector<KerasTensor> ins;
        for (const auto& r : p.nodes[p.done]) {
          if (!index_of.count(r.layer)) {
            throw ValueError(where + ": layer '" + p.layer.name() + "' reads from unknown layer '" +
                             r.layer + "'");
          }
          const KerasTensor* t = lookup(r, p.layer.name());
          if (!t) break;
          ins.push_back(*t);
        }
        if (ins.size() != p.nodes[p.done].size()) break;
        outputs[p.layer.name()].push_back(p.layer.call_with(ins, p.arguments[p.done]));
        ++p.done;
        progress = true;
      }
    }
  }
  for (const auto& p : pending) {
    if (p.done < p.nodes.size()) {
      throw ValueError(where + ": cannot rebuild the graph: node " + std::to_string(p.done) +
                       " of layer '" + p.layer.name() + "' reads tensors that no layer produces");
    }
  }
  auto resolve = [&](const json& v, const char* what) {
    std::vector<KerasTensor> out;
    for (const auto& r : refs_from_io_list(v, where)) {
      const KerasTensor* t = lookup(r, what);
      if (!t)
        throw ValueError(where + ": " + what + " refers to '" + r.layer + "' node " +
                         std::to_string(r.node) + ", which does not exist");
      out.push_back(*t);
    }
    return out;
  };
  auto ins = resolve(require_key(cfg, "input_layers", where), "input_layers");
  auto outs = resolve(require_key(cfg, "output_layers", where), "output_layers");
  Model model(ins, outs, {.name = model_name});
  // Only a frozen model freezes its layers; "trainable": true leaves frozen layers frozen.
  if (cfg.contains("trainable") && cfg["trainable"] == false) model.set_trainable(false);
  return model;
}

Model sequential_from_config(const json& cfg, const ConfigContext& ctx) {
  const json* entries = &cfg;
  std::string model_name;
  if (cfg.is_object()) {
    model_name = cfg.value("name", "");
    entries = &require_key(cfg, "layers", "Sequential '" + model_name + "'");
  }
  if (!entries->is_array())
    throw ValueError("Sequential '" + model_name + "': 'layers' is not a list");
  std::vector<Layer> layers;
  for (const auto& entry : *entries) layers.push_back(any_layer_from_config(entry, ctx));
  // No InputLayer: Keras 2 puts batch_input_shape on the first layer; Keras 3 has
  // build_input_shape.
  if (!layers.empty() && layers[0].class_name() != "InputLayer") {
    std::optional<Shape> batch_shape;
    DType dtype = DType::float32;
    const json& first = (*entries)[0].value("config", json::object());
    if (first.contains("batch_input_shape")) {
      batch_shape = shape_from_json(first["batch_input_shape"], "Sequential '" + model_name + "'");
    } else if (first.contains("batch_shape")) {
      batch_shape = shape_from_json(first["batch_shape"], "Sequential '" + model_name + "'");
    } else if (cfg.is_object() && cfg.contains("build_input_shape") &&
               cfg["build_input_shape"].is_array()) {
      batch_shape = shape_from_json(cfg["build_input_shape"], "Sequential '" + model_name + "'");
    }
    if (first.contains("dtype") && first["dtype"].is_string()) {
      try {
        dtype = parse_dtype(first["dtype"].get<std::string>());
      } catch (const Error&) {
      }
    }
    if (batch_shape && batch_shape->rank() >= 1) {
      std::string input_name = layers[0].name() + "_input";
      layers.insert(layers.begin(),
                    Layer(std::make_shared<InputLayerImpl>(*batch_shape, dtype, input_name)));
    }
  }
  Sequential model(layers, {.name = model_name});
  if (cfg.is_object() && cfg.contains("trainable") && cfg["trainable"] == false)
    model.set_trainable(false);
  return model;
}

}  // namespace

std::vector<Layer> keras_layer_order(const Model& model) {
  const ModelImpl& m = model.model();
  if (dynamic_cast<const SequentialImpl*>(&m) || m.outputs.empty()) return m.layers;
  std::map<const LayerImpl*, int> operation_index;
  std::map<const LayerImpl*, Layer> by_impl;
  std::set<const LayerCall*> finished;
  std::vector<const LayerCall*> post_order;
  std::function<void(const LayerCall*)> visit = [&](const LayerCall* c) {
    if (finished.count(c)) return;
    const LayerImpl* op = &c->layer.impl();
    if (!operation_index.count(op)) {
      operation_index.emplace(op, static_cast<int>(operation_index.size()));
      by_impl.emplace(op, c->layer);
    }
    for (const auto& t : c->inputs) visit(t.call().get());
    finished.insert(c);
    post_order.push_back(c);
  };
  for (const auto& o : m.outputs) visit(o.call().get());
  std::map<const LayerCall*, int> node_depth;
  std::map<const LayerImpl*, int> op_depth;
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    const LayerCall* node = *it;
    int depth = node_depth[node];
    const LayerImpl* op = &node->layer.impl();
    depth = std::max(depth, op_depth.count(op) ? op_depth[op] : 0);
    op_depth[op] = depth;
    node_depth[node] = depth;
    for (const auto& t : node->inputs) {
      int& d = node_depth[t.call().get()];
      d = std::max(d, depth + 1);
    }
  }
  for (const auto& in : m.inputs) {  // inputs the outputs don't use
    const LayerImpl* op = &in.call()->layer.impl();
    if (!op_depth.count(op)) {
      op_depth[op] = 0;
      operation_index[op] = -1;
      by_impl.emplace(op, in.call()->layer);
    }
  }
  std::vector<std::pair<std::pair<int, int>, const LayerImpl*>> order;
  for (const auto& [op, depth] : op_depth) order.push_back({{-depth, operation_index[op]}, op});
  std::sort(order.begin(), order.end());
  std::vector<Layer> out;
  for (const auto& [key, op] : order) out.push_back(by_impl.at(op));
  return out;
}

bool is_model_class(const std::string& c) {
  return c == "Sequential" || c == "Functional" || c == "Model";
}

json model_to_config(const Model& model, ConfigDialect dialect) {
  if (saved_as_subclass(model)) {
    if (dialect == ConfigDialect::keras2) {
      throw NotImplementedError("model '" + model.name() + "' is a Model subclass (" + model.model().class_name() +
                                "): it saves to a .keras file; the legacy .h5 format keeps no subclass that loads "
                                "back as its class");
    }
    return subclass_model_config(model);
  }
  const ModelImpl& m = model.model();
  json obj;
  if (const auto* s = dynamic_cast<const SequentialImpl*>(&m)) {
    obj = json{{"module", "keras"},
               {"class_name", "Sequential"},
               {"config", sequential_config(*s)},
               {"registered_name", nullptr}};
  } else {
    obj = json{{"module", "keras.src.models.functional"},
               {"class_name", "Functional"},
               {"config", functional_config(model)},
               {"registered_name", "Functional"}};
  }
  if (!m.inputs.empty()) obj["build_config"] = json{{"input_shape", shapes_json(m.inputs)}};
  return dialect == ConfigDialect::keras2 ? to_keras2_config(obj) : obj;
}

namespace {
// Keras 3's __keras_tensor__ objects as tf.keras's ["layer", node, index] triples.
json keras2_tensor_refs(const json& v) {
  if (v.is_array()) {
    json out = json::array();
    for (const auto& x : v) out.push_back(keras2_tensor_refs(x));
    return out;
  }
  if (!v.is_object()) return v;
  if (v.value("class_name", "") == "__keras_tensor__") {
    const json& h = v["config"]["keras_history"];
    return json::array({h[0], h[1], h[2]});
  }
  json out = json::object();
  for (auto it = v.begin(); it != v.end(); ++it) out[it.key()] = keras2_tensor_refs(it.value());
  return out;
}
// Whether a layer's Keras 3 nodes pass initial_state=[...] (a recurrent layer's states).
bool passes_initial_state(const json& nodes) {
  if (!nodes.is_array()) return false;
  for (const auto& node : nodes) {
    if (node.is_object() && node.contains("kwargs") && node["kwargs"].is_object() &&
        node["kwargs"].contains("initial_state")) {
      return true;
    }
  }
  return false;
}
}  // namespace

json to_keras2_config(const json& v) {
  if (v.is_array()) {
    json out = json::array();
    for (const auto& x : v) out.push_back(to_keras2_config(x));
    return out;
  }
  if (!v.is_object()) return v;
  if (v.value("class_name", "") == "DTypePolicy" && v.contains("config"))
    return v["config"].value("name", "float32");
  if (v.value("class_name", "") == "__keras_tensor__") {
    const json& h = v["config"]["keras_history"];
    return json::array({h[0], h[1], h[2], json::object()});
  }
  if (is_op_entry(v)) return op_entry_to_tf_op_lambda(v);
  json out = json::object();
  const bool wrapper = v.contains("class_name") && v.contains("config") && v.contains("module");
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (wrapper &&
        (it.key() == "module" || it.key() == "registered_name" || it.key() == "build_config"))
      continue;
    if (it.key() == "batch_shape") {
      out["batch_input_shape"] = it.value();
    } else if (it.key() == "inbound_nodes" &&
               (v.value("class_name", "") == "GroupQueryAttention" || passes_initial_state(it.value()))) {
      // A class tf.keras never had, and a recurrent layer given initial_state=[...]: their
      // nodes stay as Keras 3 writes them in .h5 too ({"args": [q, v], "kwargs": ...}),
      // which Keras 3's .h5 loader builds them from (its legacy loader drops tensors among
      // a tf.keras node's keyword arguments from the graph, and calls a recurrent layer on
      // tf.keras's list of x and the states as on one input).
      out["inbound_nodes"] = it.value();
    } else if (it.key() == "inbound_nodes") {
      const bool separate = takes_separate_tensors(v.value("class_name", ""));
      json nodes = json::array();
      for (const auto& node : it.value()) {
        json refs = json::array();
        std::vector<TensorRef> found;
        collect_keras3_tensors(node.value("args", json::array()), found, "inbound node");
        // tf.keras gives each input reference the call's keyword arguments (tensors among
        // them as ["layer", node, index]); a layer taking separate tensors has one
        // reference, its later tensors among those arguments.
        json kwargs = keras2_tensor_refs(node.value("kwargs", json::object()));
        if (separate) {
          for (std::size_t i = 1; i < found.size() && i < tensor_keywords().size(); ++i) {
            kwargs[tensor_keywords()[i]] = json::array({found[i].layer, found[i].node, found[i].index});
          }
          if (found.size() > 1) found.resize(1);
        }
        for (const auto& r : found) refs.push_back(json::array({r.layer, r.node, r.index, kwargs}));
        nodes.push_back(refs);
      }
      out["inbound_nodes"] = nodes;
    } else if ((it.key() == "layer" || it.key() == "backward_layer") && it.value().is_object() &&
               it.value().contains("module") && it.value().contains("class_name")) {
      // A wrapper's inner layer (Bidirectional's, TimeDistributed's) keeps its module, as
      // tf.keras 2.21 writes it: Keras 3 builds it with its new deserializer, which finds
      // no class without one ("Could not locate class 'GRU'").
      json inner = to_keras2_config(it.value());
      inner["module"] = it.value()["module"];
      inner["registered_name"] = it.value().value("registered_name", json());
      out[it.key()] = inner;
    } else if ((it.key() == "quantization_config" || it.key() == "dtype") && it.value().is_object() &&
               it.value().contains("module") && it.value().value("class_name", "") != "DTypePolicy") {
      // A quantized layer's policy and quantization config (docs/precision.md) stay as Keras
      // 3 writes them in its own .h5 files: its loader finds no Int8QuantizationConfig
      // without a module.
      out[it.key()] = it.value();
    } else if ((it.key() == "input_layers" || it.key() == "output_layers") &&
               it.value().is_array() && !it.value().empty() && it.value()[0].is_string()) {
      out[it.key()] = json::array({it.value()});
    } else {
      out[it.key()] = to_keras2_config(it.value());
    }
  }
  // Keras's .h5 files name a class registered under a package by its registered name
  // ("package>ClassName"), which its .h5 loader looks it up by.
  if (wrapper && v.contains("registered_name") && v["registered_name"].is_string() &&
      v["registered_name"].get<std::string>().find('>') != std::string::npos) {
    out["class_name"] = v["registered_name"];
  }
  // Keras's .h5 files name GroupQueryAttention after its Python class, the only name its
  // .h5 loader finds.
  if (wrapper && out.value("class_name", "") == "GroupQueryAttention") out["class_name"] = "GroupedQueryAttention";
  // A Pipeline's layers keep their modules too: Keras's Pipeline.from_config reads them
  // with the new deserializer ("Could not locate class 'RandomFlip'" without one).
  if (wrapper && v.value("class_name", "") == "Pipeline" && v["config"].contains("layers") &&
      v["config"]["layers"].is_array()) {
    json& inner = out["config"]["layers"];
    for (std::size_t i = 0; i < inner.size(); ++i) {
      const json& given = v["config"]["layers"][i];
      if (!given.is_object() || !given.contains("module")) continue;
      inner[i]["module"] = given["module"];
      inner[i]["registered_name"] = given.value("registered_name", json());
    }
  }
  return out;
}

Model model_from_config(const json& entry, const ConfigContext& ctx) {
  if (!entry.is_object() || !entry.contains("class_name") || !entry["class_name"].is_string()) {
    throw ValueError("not a Keras model config (no 'class_name')" +
                     (ctx.source.empty() ? "" : " in '" + ctx.source + "'"));
  }
  const std::string cls = entry["class_name"].get<std::string>();
  const json& cfg = require_key(entry, "config", "model config '" + cls + "'");
  if (cls == "Sequential") return sequential_from_config(cfg, ctx);
  if (cls == "Functional" || cls == "Model") {
    if (!cfg.is_object() || !cfg.contains("layers")) {
      throw NotImplementedError(
          "model class '" + cls + "' " +
          (cfg.is_object() ? "'" + cfg.value("name", std::string("?")) + "' " : "") +
          "has no layer graph in its config: subclassed models cannot be loaded from a config");
    }
    return functional_from_config(cfg, ctx);
  }
  if (std::optional<Model> subclass = subclass_model_from_config(entry, ctx)) return *subclass;
  std::string name = cfg.is_object() ? cfg.value("name", std::string("?")) : "?";
  if (layers::find_keras_class(cls)) {
    throw ValueError("config describes a single layer ('" + cls + "' '" + name + "'), not a model");
  }
  const std::string registered = entry.contains("registered_name") && entry["registered_name"].is_string()
                                     ? entry["registered_name"].get<std::string>()
                                     : cls;
  const std::string package =
      registered.find('>') != std::string::npos ? registered.substr(0, registered.find('>')) : "package";
  throw NotImplementedError("model '" + name + "' is of class '" + registered +
                            "', a Model subclass no class is registered for: write it as a CustomModel with its own "
                            "call, get_config and from_config, and register it with "
                            "saving::register_keras_serializable<" + cls + ">(\"" + package +
                            "\") (docs/extending.md)");
}

json parse_json(const std::string& text, const std::string& source, JsonOrigin origin) {
  auto fail = [&](const std::string& what) -> void {
    if (origin == JsonOrigin::file) throw IOError(what);
    throw ValueError(what);
  };
  struct TooDeep {};
  const auto depth_guard = [](int depth, json::parse_event_t, json&) {
    if (depth > kMaxJsonDepth) throw TooDeep{};
    return true;
  };
  try {
    return json::parse(text, depth_guard);
  } catch (const TooDeep&) {
    fail("JSON in " + source + " nests deeper than " + std::to_string(kMaxJsonDepth) +
         " levels; Keras configs nest far less: the text is damaged or not a config");
  } catch (const json::exception& e) {
    fail("invalid JSON in " + source + ": " + e.what());
  }
  return {};
}

}  // namespace strata::io

namespace strata::models {

std::string to_json(const Model& model, int indent) {
  return io::model_to_config(model).dump(indent);
}

Model model_from_json(const std::string& text) {
  io::json j = io::parse_json(text, "model_from_json", io::JsonOrigin::text);
  io::ConfigContext ctx;
  if (j.is_object() && j.contains("keras_version") && j["keras_version"].is_string()) {
    ctx.keras_major = j["keras_version"].get<std::string>().starts_with("2") ? 2 : 3;
  } else if (j.is_object() && !j.contains("module")) {
    ctx.keras_major = 2;  // legacy schema
  }
  try {
    return io::model_from_config(j, ctx);
  } catch (const io::json::exception& e) {  // a key of an unexpected type, as load_model says
    throw ValueError(std::string("model_from_json: the config does not have the expected structure: ") + e.what());
  }
}

}  // namespace strata::models
