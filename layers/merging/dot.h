// Dot: batched dot product of two tensors of rank 2 or more over `axes` (one axis for both,
// or one per input; 1-based non-batch axes as in Keras, negative from the end), as Keras's
// batch_dot: the output has a's axes less the contracted one, then b's less its batch axis
// and the contracted one. normalize = true L2-normalizes both along the contracted axes
// first (cosine proximity). (batch, k)·(batch, k) -> (batch, 1); (batch, m, k)·(batch, n, k)
// over (2, 2) -> (batch, m, n); (batch, p, q, k)·(batch, k, r) over (3, 1) -> (batch, p, q, r).
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct DotOptions {  // Keras signature order (after axes)
  bool normalize = false;
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)

  static constexpr auto keras_fields() { return std::tuple{keras_field("normalize", &DotOptions::normalize)}; }
};

class DotImpl : public LayerImpl {
 public:
  DotImpl(IntPair axes, DotOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool accepts_input_count(std::size_t n) const override { return n == 2; }
  IntPair axes;
  DotOptions options;
};

class Dot : public Layer {
 public:
  explicit Dot(IntPair axes, DotOptions options = {});
};

}  // namespace strata::layers
