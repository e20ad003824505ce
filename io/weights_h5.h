// Weights-only files in Keras's HDF5 layouts (implemented in io/weights_h5.cc).
#pragma once

#include <string>
#include <vector>

#include "core/variable.h"

namespace strata::io {

struct LayerWeights {
  std::string layer_name;
  std::vector<Variable> weights;
};

void save_weights_h5(const std::string& path, const std::vector<LayerWeights>& layers);
void load_weights_h5(const std::string& path, const std::vector<LayerWeights>& layers);

}  // namespace strata::io
