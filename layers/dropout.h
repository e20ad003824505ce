// Dropout: inverted dropout in training (x * mask / (1 - rate)), identity in inference.
// The mask depends on (seed, layer, step, element) only: training is reproducible and
// resumable, and the backward pass regenerates the mask instead of storing it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct DropoutOptions {
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("seed", &DropoutOptions::seed)};
  }
};

class DropoutImpl : public LayerImpl {
 public:
  DropoutImpl(double rate, DropoutOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  double rate;
  std::uint64_t seed;  // options.seed, or drawn
  DropoutOptions options;
};

class Dropout : public Layer {
 public:
  explicit Dropout(double rate, DropoutOptions options = {});
};

}  // namespace strata::layers
