// AlphaDropout: in training, sets dropped units to SELU's negative saturation -α·λ and
// applies the affine map a·x + b that keeps a standardized input's mean and variance
// (Klambauer et al., 2017), as keras.layers.AlphaDropout; identity in inference. Its masks
// are Dropout's: a pure function of (seed, call, step, element), shared along noise_shape's 1s.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct AlphaDropoutOptions {  // Keras signature order (after rate)
  // One entry per input axis: 1 shares the draw along it; unknown (None) follows the input.
  std::optional<Shape> noise_shape;
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {  // Keras writes seed first
    return std::tuple{keras_field("seed", &AlphaDropoutOptions::seed),
                      keras_field("noise_shape", &AlphaDropoutOptions::noise_shape)};
  }
};

class AlphaDropoutImpl : public LayerImpl {
 public:
  AlphaDropoutImpl(double rate, AlphaDropoutOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  double rate;
  std::uint64_t seed;  // options.seed, or drawn
  AlphaDropoutOptions options;
};

class AlphaDropout : public Layer {
 public:
  explicit AlphaDropout(double rate, AlphaDropoutOptions options = {});
};

}  // namespace strata::layers
