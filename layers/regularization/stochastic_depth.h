// StochasticDepth (keras.applications.convnext): in training, drops a whole sample's
// residual branch with probability drop_path_rate (and scales the kept ones by
// 1 / (1 - rate)); in inference, the identity.
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct StochasticDepthOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{}; }
};

class StochasticDepthImpl : public LayerImpl {
 public:
  StochasticDepthImpl(double drop_path_rate, StochasticDepthOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;

  double drop_path_rate;
  StochasticDepthOptions options;
  std::uint64_t seed;
};

class StochasticDepth : public Layer {
 public:
  explicit StochasticDepth(double drop_path_rate, StochasticDepthOptions options = {});
};

}  // namespace strata::layers
