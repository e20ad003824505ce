// Softmax layer: softmax along `axis` (one axis or several). An optional second input is
// Keras's mask: masked positions (mask <= 0.5) get -1e9 before the softmax and 0 after,
// so a fully masked row is all zeros.
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct SoftmaxOptions {  // Keras signature order
  Axes axis = -1;
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("axis", &SoftmaxOptions::axis, Spelling::bare_single)};
  }
};

class SoftmaxImpl : public LayerImpl {
 public:
  explicit SoftmaxImpl(SoftmaxOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool accepts_input_count(std::size_t n) const override { return n == 1 || n == 2; }
  SoftmaxOptions options;
};

class Softmax : public Layer {
 public:
  explicit Softmax(SoftmaxOptions options = {});
};

}  // namespace strata::layers
