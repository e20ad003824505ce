// Dropout: inverted dropout in training (x * mask / (1 - rate)), identity in inference.
// The mask depends on (seed, layer, step, element) only: training is reproducible and
// resumable, and the backward pass regenerates the mask instead of storing it. With
// noise_shape, one draw is shared along the axes where it is 1 (e.g. (None, 1, 1, C):
// whole feature maps, (None, 1, 1, 1): whole samples, as EfficientNet drops blocks).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct DropoutOptions {  // Keras signature order (after rate)
  // One entry per input axis: 1 shares the draw along it; unknown (None) follows the input.
  std::optional<Shape> noise_shape;
  std::optional<std::uint64_t> seed;  // default: drawn from the global seed generator
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("noise_shape", &DropoutOptions::noise_shape),
                      keras_field("seed", &DropoutOptions::seed)};
  }
};

class DropoutImpl : public LayerImpl {
 public:
  DropoutImpl(double rate, DropoutOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  LowPrecisionForm low_precision_form() const override { return LowPrecisionForm::low_precision; }
  double rate;
  std::uint64_t seed;  // options.seed, or drawn
  DropoutOptions options;
};

class Dropout : public Layer {
 public:
  explicit Dropout(double rate, DropoutOptions options = {});
};

// The axes along which a noise_shape shares one draw (its 1s where the input is not 1);
// throws ShapeError when its rank differs from the input's or an entry is not None, 1 or
// the input's size. Dropout's and AlphaDropout's noise_shape.
std::vector<std::int64_t> noise_shared_axes(const Shape& noise_shape, const Shape& input_shape);

// Inverted dropout of x with one draw shared along `shared_axes` (noise_shape's 1s;
// StochasticDepth drops whole samples with every non-batch axis shared).
Output dropout_shared_along(Output x, const std::vector<std::int64_t>& shared_axes, float rate,
                            std::uint64_t seed, std::uint64_t stream);

}  // namespace strata::layers
