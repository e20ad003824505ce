// Cropping1D/2D: elements removed from the ends of the spatial axes.
#pragma once

#include <string>

#include "layers/convolutional/conv_utils.h"
#include "layers/keras_class.h"
#include "layers/layer.h"

namespace strata::layers {

struct CroppingOptions {
  std::string data_format;  // 2-D only
  std::string name;

  static constexpr auto keras_fields() {
    return std::tuple{keras_field("data_format", &CroppingOptions::data_format, Spelling::data_format)};
  }
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
