#include "layers/core/input_layer.h"

#include "core/error.h"
#include "layers/keras_class.h"

namespace strata {

InputLayerImpl::InputLayerImpl(Shape batch_shape, DType dtype, std::string layer_name)
    : LayerImpl("InputLayer", layer_name.empty() ? default_layer_name("InputLayer") : std::move(layer_name)),
      spec{std::move(batch_shape), dtype} {
  built = true;
}

KerasTensor Input(const Shape& shape, InputOptions options) {
  for (auto d : shape.dims()) {
    if (d < 0 && d != kUnknownDim) throw ValueError("Input: invalid dimension in shape " + shape.to_string());
  }
  Shape batch_shape = shape.with_batch(options.batch_size ? *options.batch_size : kUnknownDim);
  auto impl = std::make_shared<InputLayerImpl>(batch_shape, options.dtype, options.name);
  auto call = std::make_shared<LayerCall>(LayerCall{Layer(impl), {}, {impl->spec}});
  return KerasTensor(call, 0);
}

namespace {

using layers::ConfigSource;
using layers::ConfigValue;
using layers::FieldSpec;
using layers::KerasClass;
using layers::ValueKind;

// InputLayer's config: batch_shape (Keras 2's batch_input_shape is renamed before this;
// input_shape or shape without the batch are read too), dtype, sparse (refused), name.
// It holds no variables, and Keras 3 writes no vars group for it.
KerasClass input_layer_class() {
  const FieldSpec batch_shape = layers::spec_of("batch_shape", ValueKind::shape);
  const FieldSpec dtype = layers::spec_of("dtype", ValueKind::string);
  KerasClass k;
  k.class_name = "InputLayer";
  k.fields = {batch_shape, dtype, layers::keras_refused("sparse", "false").because("sparse inputs").spec(),
              layers::keras_refused("ragged", "false").unwritten().because("ragged inputs").spec(),
              layers::keras_refused("optional", "false").unwritten().because("optional inputs").spec(),
              spec_of("name", ValueKind::string)};
  k.values = [](const LayerImpl& impl) {
    const auto& in = static_cast<const InputLayerImpl&>(impl);
    return std::vector<ConfigValue>{in.spec.shape.dims(), to_string(in.spec.dtype), in.name};
  };
  k.make = [=](const ConfigSource& src) -> Layer {
    Shape shape;
    if (auto v = src.get(batch_shape)) {
      shape = Shape(std::get<std::vector<std::int64_t>>(*v));
    } else if (auto s = src.get(spec_of("input_shape", ValueKind::shape))) {
      shape = Shape(std::get<std::vector<std::int64_t>>(*s)).with_batch(kUnknownDim);
    } else if (auto t = src.get(spec_of("shape", ValueKind::shape))) {
      shape = Shape(std::get<std::vector<std::int64_t>>(*t)).with_batch(kUnknownDim);
    } else {
      throw ValueError(src.where() + ": config has no 'batch_shape' (nor 'batch_input_shape')");
    }
    if (shape.rank() < 1) throw ValueError(src.where() + ": batch_shape must include the batch dimension");
    DType type = DType::float32;
    if (auto v = src.get(dtype)) {
      const std::string name = std::get<std::string>(*v);
      try {
        type = parse_dtype(name);
      } catch (const Error&) {
        throw NotImplementedError(src.where() + ": input dtype '" + name + "' is not supported");
      }
    }
    return Layer(std::make_shared<InputLayerImpl>(shape, type, src.name()));
  };
  k.keras3_vars = [](const LayerImpl&) { return std::vector<KerasClass::VarGroup>{}; };
  return k;
}

const bool input_layer_registered = layers::register_keras_class(input_layer_class());

}  // namespace

}  // namespace strata
