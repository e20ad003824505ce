// Softmax layer: softmax along `axis` (Keras's Softmax; its input mask is not applied).
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct SoftmaxOptions {  // Keras signature order
  std::int64_t axis = -1;
  std::string name;

  static constexpr auto keras_fields() { return std::tuple{keras_field("axis", &SoftmaxOptions::axis)}; }
};

class SoftmaxImpl : public LayerImpl {
 public:
  explicit SoftmaxImpl(SoftmaxOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  SoftmaxOptions options;
};

class Softmax : public Layer {
 public:
  explicit Softmax(SoftmaxOptions options = {});
};

}  // namespace strata::layers
