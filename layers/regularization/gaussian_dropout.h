// GaussianDropout: multiplies by 1-centred Gaussian noise of standard deviation
// sqrt(rate / (1 - rate)) in training, drawn anew at every step (as Dropout's masks are:
// reproducible and resumable); identity in inference.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct GaussianDropoutOptions {  // Keras signature order (after rate)
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{keras_field("seed", &GaussianDropoutOptions::seed)}; }
};

class GaussianDropoutImpl : public LayerImpl {
 public:
  GaussianDropoutImpl(double rate, GaussianDropoutOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  double rate;
  std::uint64_t seed;  // options.seed, or drawn
  GaussianDropoutOptions options;
};

class GaussianDropout : public Layer {
 public:
  explicit GaussianDropout(double rate, GaussianDropoutOptions options = {});
};

}  // namespace strata::layers
