#include "layers/input_layer.h"

#include "core/error.h"

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

}  // namespace strata
