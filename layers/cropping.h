// Cropping1D/2D: elements removed from the ends of the spatial axes.
#pragma once

#include <string>

#include "layers/conv_utils.h"
#include "layers/layer.h"

namespace strata::layers {

struct CroppingOptions {
  std::string data_format;  // 2-D only
  std::string name;
};

class Cropping1D : public Layer {
 public:
  // `cropping` = (before, after); an int crops both ends.
  explicit Cropping1D(IntPair cropping = 1, CroppingOptions options = {});
};
class Cropping2D : public Layer {
 public:
  explicit Cropping2D(Padding2D cropping = 0, CroppingOptions options = {});
};

}  // namespace strata::layers
