// Concatenate: joins its inputs along `axis` (default the last); every other dimension
// must agree, else a ShapeError at definition naming the layer and every shape. Masks as
// Keras's compute_mask: when any input has one, each input's mask (all true for an input
// without one; a mask of one dim less given a last axis and broadcast to its input) is
// concatenated along `axis`, and the output's mask is its logical any over the last axis.
#pragma once

#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct ConcatenateOptions {
  std::string name;
  DTypePolicyName dtype;  // Keras's dtype=: this layer's dtype policy ("" the global one)
};

class ConcatenateImpl : public LayerImpl {
 public:
  ConcatenateImpl(int axis, ConcatenateOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  std::vector<Output> compute_mask(Graph& graph, const std::vector<Output>& inputs,
                                   const std::vector<Output>& masks) override;
  bool accepts_input_count(std::size_t n) const override { return n >= 1; }
  int axis;
  ConcatenateOptions options;
};

class Concatenate : public Layer {
 public:
  explicit Concatenate(int axis = -1, ConcatenateOptions options = {});
};

}  // namespace strata::layers
