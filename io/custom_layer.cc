#include "io/custom_layer.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>

#include "core/error.h"
#include "core/ops.h"

namespace strata {

CustomLayer::CustomLayer(std::string class_name, std::string name)
    : LayerImpl(std::move(class_name), std::move(name)) {}

std::vector<Layer> CustomLayer::sublayers() const { return tracked_; }

Layer CustomLayer::track(const std::string& attribute, Layer layer) {
  const std::string where = class_name() + " '" + name + "'";
  if (!layer.defined()) throw ValueError(where + ": track('" + attribute + "') was given an undefined layer");
  if (attribute.empty() || attribute.find('/') != std::string::npos) {
    throw ValueError(where + ": '" + attribute + "' cannot name a tracked layer (it must be non-empty, without '/')");
  }
  if (std::find(attributes_.begin(), attributes_.end(), attribute) != attributes_.end()) {
    throw ValueError(where + " already tracks a layer as '" + attribute + "'");
  }
  if (std::find(tracked_.begin(), tracked_.end(), layer) != tracked_.end()) {
    throw ValueError(where + " already tracks " + layer.class_name() + " '" + layer.name() + "'");
  }
  tracked_.push_back(layer);
  attributes_.push_back(attribute);
  return layer;
}

std::vector<Output> CustomLayer::call_layer(const Layer& layer, Graph& graph, const std::vector<Output>& inputs) {
  if (std::find(tracked_.begin(), tracked_.end(), layer) == tracked_.end()) {
    throw ValueError("calls " + layer.class_name() + " '" + layer.name() +
                     "', which it does not track: track(\"attribute\", layer) it in the constructor, so that its "
                     "weights train and save with this layer");
  }
  LayerImpl& inner = layer.impl();
  // The inner layer's randomness follows this layer's call (a second call draws anew).
  inner.current_call = current_call;
  if (!inner.built) {
    std::vector<TensorSpec> specs;
    for (const auto& in : inputs) specs.push_back(in.spec());
    inner.build(specs);
    inner.built = true;
  }
  return inner.call(graph, inputs);
}

void CustomLayer::add_loss(Graph& graph, Output loss) {
  const std::string where = class_name() + " '" + name + "'";
  if (!loss.valid()) throw ValueError(where + ": add_loss was given no value");
  if (loss.dtype() != DType::float32) {
    throw ValueError(where + ": add_loss takes a float32 value, got " + to_string(loss.dtype()));
  }
  try {
    graph.add_loss(loss.shape().rank() == 0 ? loss : ops::reduce_sum(loss));
  } catch (const ValueError& e) {
    throw ValueError(where + ": " + e.what());
  }
}

void CustomLayer::add_update(Graph& graph, Output update, bool training_only) {
  const std::string where = class_name() + " '" + name + "'";
  if (!update.valid()) throw ValueError(where + ": add_update was given no update");
  try {
    graph.add_update(update, training_only ? Graph::UpdateMode::training_only : Graph::UpdateMode::always);
  } catch (const ValueError& e) {
    throw ValueError(where + ": " + e.what() + " (add_update takes an ops::assign or ops::assign_add of a weight)");
  }
}

Output CustomLayer::call_layer(const Layer& layer, Graph& graph, const Output& input) {
  std::vector<Output> out = call_layer(layer, graph, std::vector<Output>{input});
  if (out.size() != 1) {
    throw ValueError(layer.class_name() + " '" + layer.name() + "' gives " + std::to_string(out.size()) +
                     " outputs, not one");
  }
  return out[0];
}

namespace saving::detail {

namespace {

// A tracked layer's groups sit under its attribute (layers/mlp_block/linear_1/vars), after
// the layer's own "vars" (written even when empty, as Keras does).
std::vector<io::VarGroup> custom_layer_var_groups(const LayerImpl& impl) {
  const auto& layer = static_cast<const CustomLayer&>(impl);
  std::vector<io::VarGroup> groups{{"vars", layer.weights}};
  const std::vector<Layer> nested = layer.sublayers();
  for (std::size_t i = 0; i < nested.size(); ++i) {
    for (io::VarGroup g : io::keras3_var_groups(nested[i])) {
      g.path = layer.sublayer_attributes()[i] + "/" + g.path;
      groups.push_back(std::move(g));
    }
  }
  return groups;
}

}  // namespace

std::string unqualified_type_name(const std::type_info& type) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(type.name(), nullptr, nullptr, &status),
                                                  std::free);
  std::string name = status == 0 && demangled ? demangled.get() : type.name();
  // The last component outside template arguments: ns::Linear -> Linear.
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (depth == 0 && name[i] == ':' && i + 1 < name.size() && name[i + 1] == ':') start = i + 2;
  }
  return name.substr(start);
}

bool register_custom_layer(const std::string& package, const std::string& class_name,
                           std::function<Layer(const io::json&)> from_config) {
  if (package.empty() || package.find('>') != std::string::npos) {
    throw ValueError("register_keras_serializable<" + class_name +
                     ">: the package must be non-empty and without '>', got '" + package + "'");
  }
  if (class_name.empty() || class_name.find('>') != std::string::npos) {
    throw ValueError("register_keras_serializable: '" + class_name + "' cannot name a class");
  }
  io::LayerConfigEntry e;
  e.class_name = class_name;
  e.module = "";  // written as null: no Python module holds it; Keras finds it by registered_name
  e.registered_name = package + ">" + class_name;
  e.to_config = [class_name](const LayerImpl& impl) -> io::json {
    const auto* layer = dynamic_cast<const CustomLayer*>(&impl);
    if (!layer) {
      throw ValueError(impl.class_name() + " '" + impl.name + "' is registered as a CustomLayer but is not one");
    }
    io::json config = layer->get_config();
    if (!config.is_object()) {
      throw ValueError(class_name + " '" + impl.name + "': get_config() must give a JSON object, got " + config.dump());
    }
    return config;
  };
  e.from_config = [class_name, from_config = std::move(from_config)](const io::json& config,
                                                                     const io::ConfigContext&) -> Layer {
    Layer layer = from_config(config);
    if (!layer.defined() || layer.class_name() != class_name) {
      throw ValueError("from_config of the class registered as '" + class_name + "' made " +
                       (layer.defined() ? "a layer of class '" + layer.class_name() + "'" : "no layer") +
                       ": the class name given to CustomLayer must be the registered one");
    }
    return layer;
  };
  e.keras3_vars = custom_layer_var_groups;
  return io::register_layer_config(std::move(e));
}

}  // namespace saving::detail
}  // namespace strata
