// Users' own layers, written as Keras's guide "Making new layers and models via subclassing"
// writes them (docs/extending.md walks through it):
//
//   class Linear : public CustomLayer {
//    public:
//     explicit Linear(std::int64_t units = 32, std::string name = "") : CustomLayer("Linear", name), units(units) {}
//     void build(const std::vector<TensorSpec>& inputs) override {
//       w = add_weight("w", {inputs[0].shape.dims().back(), units}, initializers::RandomNormal());
//       b = add_weight("b", {units}, initializers::Zeros());
//     }
//     std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override {
//       return {ops::add(ops::matmul(inputs[0], graph.variable(w)), graph.variable(b))};
//     }
//     io::json get_config() const override { return {{"units", units}}; }
//     static Layer from_config(const io::json& config) {
//       return make_layer<Linear>(config.at("units").get<std::int64_t>(), config.at("name").get<std::string>());
//     }
//     std::int64_t units;
//     Variable w, b;
//   };
//   const bool registered = saving::register_keras_serializable<Linear>("my_package");
//
//   Layer linear = make_layer<Linear>(4);
//   KerasTensor y = linear(x);
//
// A CustomLayer is a LayerImpl (the base every built-in layer derives from), so a user's
// layer is called, built, differentiated, summarized and trained as theirs are; the
// registration puts it in the same registry of layer classes (layers/keras_class.h), so
// .keras and .h5 files save and load it, named as Keras names a registered class
// ("my_package>Linear"), which Python Keras loads where a class is registered under that
// name.
#pragma once

#include <memory>
#include <string>
#include <functional>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <vector>

#include "io/custom_model.h"
#include "io/layer_config.h"
#include "layers/layer.h"

namespace strata {

class CustomLayer : public LayerImpl {
 public:
  // `class_name` is Keras's name for the class ("Linear"): files hold it, summaries show it;
  // an empty `name` gets a fresh default ("linear", "linear_1", ...).
  explicit CustomLayer(std::string class_name, std::string name = "");

  // Keras's get_config: what from_config needs to make the layer again (units, ...).
  // Saving adds name, trainable and dtype, as Keras's base Layer does.
  virtual io::json get_config() const { return io::json::object(); }

  // The layers tracked with track(), in tracking order: their weights follow this layer's
  // own (Keras 3's order), train and save with it.
  std::vector<Layer> sublayers() const override;
  // The attribute each tracked layer was given, in the same order.
  const std::vector<std::string>& sublayer_attributes() const { return attributes_; }

 protected:
  // Keras tracks a layer assigned to an attribute (self.linear_1 = Linear(32)); C++ says so:
  // `linear_1 = track("linear_1", make_layer<Linear>(32))`. A .keras file keeps its weights
  // under the attribute (layers/mlp_block/linear_1/vars). Tracking one layer twice, or two
  // under one attribute, is a ValueError.
  Layer track(const std::string& attribute, Layer layer);
  // Calls a tracked layer inside call() (Keras: self.linear_1(x)): builds it on the inputs'
  // specs the first time, then adds its computation to `graph`.
  std::vector<Output> call_layer(const Layer& layer, Graph& graph, const std::vector<Output>& inputs);
  Output call_layer(const Layer& layer, Graph& graph, const Output& input);

  // Keras's self.add_loss(value) inside call(): a loss of this forward pass, which a compiled
  // model adds to its total loss in training and evaluation (a custom step's compute_loss
  // too), as Keras adds model.losses. A value of any shape is summed first, as Keras sums
  // each added loss; it must be float32.
  void add_loss(Graph& graph, Output loss);
  // A state update inside call(), as Keras's `self.total.assign_add(...)`: `update` is an
  // ops::assign or ops::assign_add of a weight (graph.variable(total)), and every program
  // that runs the layer runs it, in every mode (`training_only`: only when training, as
  // BatchNormalization's moving statistics). A program runs its updates after all its
  // reads, so a read of the weight in the same call sees its value before the update.
  void add_update(Graph& graph, Output update, bool training_only = false);

 private:
  std::vector<Layer> tracked_;
  std::vector<std::string> attributes_;
};

// A Layer handle to a new MyLayer made from `args` (Keras: Linear(4)).
template <typename MyLayer, typename... Args>
Layer make_layer(Args&&... args) {
  static_assert(std::is_base_of_v<LayerImpl, MyLayer>, "make_layer<T>: T must derive from CustomLayer");
  return Layer(std::make_shared<MyLayer>(std::forward<Args>(args)...));
}

// The MyLayer behind a handle, or a ValueError naming the layer when it is another class.
template <typename MyLayer>
MyLayer& layer_cast(const Layer& layer) {
  auto* impl = dynamic_cast<MyLayer*>(&layer.impl());
  if (!impl) throw ValueError(layer.class_name() + " '" + layer.name() + "' is not the class asked for");
  return *impl;
}

namespace saving {

// Keras's register_keras_serializable: registers MyLayer (a CustomLayer with a
// `static Layer from_config(const io::json& config)`; config holds name, trainable, dtype
// and get_config's keys) under "package>ClassName", ClassName being the layer's class_name
// (`name` to give another; without it the C++ class's name, which must then be the
// class_name its constructor gives CustomLayer). Files then save and load it; Keras's own, where Python Keras
// registered a class of that name, load too. Returns true, for a static initializer:
// `const bool registered = saving::register_keras_serializable<Linear>("my_package");`.
// One class name under two packages is a ValueError.
// A CustomModel subclass with its own call registers the same way, with a
// `static Model from_config(const io::json& config)` and get_config(): .keras files then
// save and load it under its own class (io/custom_model.h).
template <typename MyClass>
bool register_keras_serializable(const std::string& package = "Custom", const std::string& name = "");

namespace detail {
// Registers the entry of a CustomLayer class: its config from get_config, its variables in
// groups by tracked attribute, and `from_config` checked to make a layer of `class_name`.
bool register_custom_layer(const std::string& package, const std::string& class_name,
                           std::function<Layer(const io::json&)> from_config);
// A C++ type's unqualified name ("Linear" for extending_guide::Linear), Python's __name__.
std::string unqualified_type_name(const std::type_info& type);
}  // namespace detail

template <typename MyClass>
bool register_keras_serializable(const std::string& package, const std::string& name) {
  const std::string class_name = name.empty() ? detail::unqualified_type_name(typeid(MyClass)) : name;
  if constexpr (std::is_base_of_v<CustomModel, MyClass>) {
    static_assert(requires(const io::json& c) {
      { MyClass::from_config(c) } -> std::convertible_to<Model>;
    }, "register_keras_serializable<T>: a model class T needs `static Model from_config(const io::json& config)`");
    return io::detail::register_custom_model(package, class_name, typeid(MyClass),
                                             [](const io::json& c) -> Model { return MyClass::from_config(c); });
  } else {
    static_assert(std::is_base_of_v<CustomLayer, MyClass>,
                  "register_keras_serializable<T>: T must derive from CustomLayer or CustomModel");
    static_assert(requires(const io::json& c) {
      { MyClass::from_config(c) } -> std::convertible_to<Layer>;
    }, "register_keras_serializable<T>: T needs `static Layer from_config(const io::json& config)`");
    return detail::register_custom_layer(package, class_name,
                                         [](const io::json& c) -> Layer { return MyClass::from_config(c); });
  }
}

}  // namespace saving
}  // namespace strata
