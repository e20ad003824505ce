#include "models/sequential.h"

#include "core/error.h"
#include "layers/core/input_layer.h"
#include "models/compiled_model.h"

namespace strata {

SequentialImpl::SequentialImpl(std::string model_name)
    : ModelImpl({}, {}, model_name.empty() ? default_layer_name("sequential") : std::move(model_name), "Sequential") {}

void SequentialImpl::add(const Layer& layer) {
  if (!layer.defined()) throw ValueError("Sequential '" + name + "': cannot add an undefined layer");
  if (layer.class_name() == "InputLayer") {
    if (input_layer.defined() || !stack.empty()) {
      throw ValueError("Sequential '" + name + "': an Input can only be the first layer");
    }
    input_layer = layer;
    return;
  }
  for (const auto& l : stack) {
    if (l == layer) throw ValueError("Sequential '" + name + "': layer '" + layer.name() + "' was added twice");
  }
  stack.push_back(layer);
  if (input_layer.defined()) {
    try {
      rebuild();
    } catch (...) {
      stack.pop_back();  // a layer that doesn't fit is not kept
      throw;
    }
  }
  compiled.reset();
  inference.reset();
}

void SequentialImpl::pop() {
  if (stack.empty()) throw ValueError("Sequential '" + name + "': there is no layer to pop");
  stack.pop_back();
  if (input_layer.defined() && !stack.empty()) {
    rebuild();
  } else {
    calls.clear();
    layers = stack;
    inputs.clear();
    outputs.clear();
  }
  compiled.reset();
  inference.reset();
}

void SequentialImpl::rebuild() {
  const auto& in = static_cast<const InputLayerImpl&>(input_layer.impl());
  auto call = std::make_shared<LayerCall>(LayerCall{input_layer, {}, {in.spec}});
  KerasTensor x(call, 0);
  KerasTensor input = x;
  for (const auto& layer : stack) x = layer(x);
  set_graph({input}, {x});
  layers = stack;  // Keras's Sequential.layers leaves out the InputLayer
}

void SequentialImpl::build_from_data(const std::vector<Tensor>& x) {
  if (stack.empty()) throw ValueError("Sequential '" + name + "' has no layers");
  if (input_layer.defined()) return;
  if (x.size() != 1) throw ValueError("Sequential '" + name + "' takes one input array, got " + std::to_string(x.size()));
  Shape shape = x[0].shape().without_batch();
  KerasTensor in = Input(shape, {.dtype = x[0].dtype()});
  input_layer = in;
  rebuild();
}

Sequential::Sequential(const std::vector<Layer>& layers, ModelOptions options)
    : Model(std::make_shared<SequentialImpl>(std::move(options.name))) {
  for (const auto& l : layers) add(l);
}

void Sequential::add(const Layer& layer) { static_cast<SequentialImpl&>(model()).add(layer); }
void Sequential::pop() { static_cast<SequentialImpl&>(model()).pop(); }

}  // namespace strata
