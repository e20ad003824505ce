// Which of a model config's layer classes Strata can build: what strata-inspect prints
// for a file before (or instead of) loading it.
#pragma once

#include <string>
#include <vector>

#include "io/layer_config.h"

namespace strata::io {

struct LayerClassSupport {
  std::string name;  // "Conv2D", "op Add (keras.src.ops.numpy)", "TFOpLambda math.multiply"
  int count = 0;     // layers of this class, nested models included
  bool supported = false;
};

// Every class in a model config ({"class_name", "config"}), nested models walked, sorted
// by name.
std::vector<LayerClassSupport> layer_class_support(const json& model_config);

}  // namespace strata::io
