// Concatenate: joins its inputs along `axis` (default the last); every other dimension
// must agree, else a ShapeError at definition naming the layer and every shape.
#pragma once

#include <string>

#include "layers/layer.h"

namespace strata::layers {

struct ConcatenateOptions {
  std::string name;
};

class ConcatenateImpl : public LayerImpl {
 public:
  ConcatenateImpl(int axis, ConcatenateOptions options);
  std::vector<Output> call(Graph& graph, const std::vector<Output>& inputs) override;
  bool accepts_input_count(std::size_t n) const override { return n >= 1; }
  int axis;
  ConcatenateOptions options;
};

class Concatenate : public Layer {
 public:
  explicit Concatenate(int axis = -1, ConcatenateOptions options = {});
};

}  // namespace strata::layers
