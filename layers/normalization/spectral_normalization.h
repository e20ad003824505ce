// SpectralNormalization(layer): keras.layers.SpectralNormalization, a wrapper that divides the
// wrapped layer's kernel (or an Embedding's embeddings) by its largest singular value σ,
// estimated by power iteration from a stored vector u (1, units), as Keras does:
//   W  = kernel reshaped to (-1, units);
//   repeat power_iterations times:  v = normalize(u · Wᵀ),  u = normalize(v · W);
//   σ  = v · W · uᵀ;   the kernel becomes kernel / σ.
// normalize(x) = x · min(1/‖x‖₂, 10⁷). In training (fit's programs) each call assigns the
// new u and kernel / σ to the weights (unless the kernel is all zeros) and runs the
// layer on kernel / σ, whose gradient reaches the kernel as the layer's own (Keras assigns
// before the layer reads it, so no gradient flows through σ); the optimizer then updates
// the assigned kernel. In inference the layer runs on the kernel as stored. Weights: the
// layer's, under "<name>/<layer>/...", and vector_u (1, units), not trainable. As in Keras,
// the output is cast to the input's dtype. Masks are the wrapped layer's: it is called with
// the input's mask and the output carries the mask it passes on (Keras's wrapper returns
// the wrapped layer's output, mask attached).
//
//   auto y = layers::SpectralNormalization(layers::Conv2D(8, 3))(x);
#pragma once

#include <cstdint>
#include <string>

#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct SpectralNormalizationOptions {
  std::int64_t power_iterations = 1;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() {
    using O = SpectralNormalizationOptions;
    return std::tuple{keras_field("power_iterations", &O::power_iterations).at_least(1)};
  }
};

class SpectralNormalizationImpl : public LayerImpl {
 public:
  SpectralNormalizationImpl(Layer layer, SpectralNormalizationOptions options);
  void build(const std::vector<TensorSpec>& inputs) override;
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> call_masked(Graph& graph, const std::vector<Output>& inputs,
                                  const std::vector<Output>& masks) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  std::vector<Layer> sublayers() const override { return {layer}; }

  Layer layer;
  SpectralNormalizationOptions options;
  Variable kernel;    // the wrapped layer's kernel (or embeddings)
  Variable vector_u;  // (1, units)

 private:
  // The kernel the layer reads in this call: kernel / σ in training, as stored otherwise;
  // adds the training updates of u and the kernel.
  Output normalized_kernel(Graph& graph);
};

class SpectralNormalization : public Layer {
 public:
  explicit SpectralNormalization(const Layer& layer, SpectralNormalizationOptions options = {});
};

}  // namespace strata::layers
