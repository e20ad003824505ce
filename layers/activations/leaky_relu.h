// LeakyReLU: x for x >= 0, negative_slope * x below (Keras 3's default slope is 0.3;
// Keras 2 files call it "alpha").
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct LeakyReLUOptions {  // Keras signature order
  double negative_slope = 0.3;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("negative_slope", &LeakyReLUOptions::negative_slope)
                          .also_read_as("alpha")};
  }
};

class LeakyReLUImpl : public LayerImpl {
 public:
  explicit LeakyReLUImpl(LeakyReLUOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LeakyReLUOptions options;
};

class LeakyReLU : public Layer {
 public:
  explicit LeakyReLU(LeakyReLUOptions options = {});
};

}  // namespace strata::layers
