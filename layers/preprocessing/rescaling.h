// Rescaling: x * scale + offset (e.g. 1/255 to bring pixels to [0, 1], or 1/127.5 with
// offset -1 for [-1, 1]). scale and offset are a number or one number per channel (the
// last axis).
#pragma once

#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct RescalingOptions {  // Keras signature order (after scale)
  PerChannel offset = 0.0;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("offset", &RescalingOptions::offset, Spelling::bare_single)};
  }
};

class RescalingImpl : public LayerImpl {
 public:
  RescalingImpl(PerChannel scale, RescalingOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  PerChannel scale;
  RescalingOptions options;

 private:
  // Per-channel values as constants the graph reads (not weights: Keras saves none).
  Variable channel_scale_, channel_offset_;
};

class Rescaling : public Layer {
 public:
  explicit Rescaling(PerChannel scale, RescalingOptions options = {});
};

}  // namespace strata::layers
