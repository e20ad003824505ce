// Sequential: a stack of single-input, single-output layers. With an Input (first in the
// list) every layer is called as it is added, so shape errors surface at once; without
// one, the model is built from the shape of the first data it sees, as in Keras.
#pragma once

#include <vector>

#include "models/model.h"

namespace strata {

class SequentialImpl : public ModelImpl {
 public:
  explicit SequentialImpl(std::string name);
  void add(const Layer& layer);
  void pop();
  void build_from_data(const std::vector<Tensor>& x) override;
  std::vector<Layer> stack;  // without the InputLayer (Keras's model.layers)
  Layer input_layer;

 private:
  void rebuild();
};

class Sequential : public Model {
 public:
  explicit Sequential(const std::vector<Layer>& layers = {}, ModelOptions options = {});
  void add(const Layer& layer);
  void pop();
};

}  // namespace strata
