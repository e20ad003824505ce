// Input(): the symbolic entry point of a model, as keras.Input. The batch dimension is
// unknown unless batch_size is given.
#pragma once

#include <optional>
#include <string>

#include "layers/layer.h"

namespace strata {

struct InputOptions {
  std::optional<std::int64_t> batch_size;
  DType dtype = DType::float32;
  std::string name;
};

class InputLayerImpl : public LayerImpl {
 public:
  InputLayerImpl(Shape batch_shape, DType dtype, std::string name);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override { return inputs; }
  bool accepts_input_count(std::size_t n) const override { return n == 0; }
  TensorSpec spec;  // batch_shape and dtype
};

// `shape` excludes the batch dimension, as in Keras.
KerasTensor Input(const Shape& shape, InputOptions options = {});

namespace layers {
using strata::Input;
}

}  // namespace strata
