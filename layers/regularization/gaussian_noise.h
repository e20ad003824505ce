// GaussianNoise: adds N(0, stddev²) noise in training, drawn anew at every step (as
// Dropout's masks are: reproducible and resumable); identity in inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct GaussianNoiseOptions {  // Keras signature order (after stddev)
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{keras_field("seed", &GaussianNoiseOptions::seed)}; }
};

class GaussianNoiseImpl : public LayerImpl {
 public:
  GaussianNoiseImpl(double stddev, GaussianNoiseOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  double stddev;
  std::uint64_t seed;  // options.seed, or drawn
  GaussianNoiseOptions options;
};

class GaussianNoise : public Layer {
 public:
  explicit GaussianNoise(double stddev, GaussianNoiseOptions options = {});
};

}  // namespace strata::layers
