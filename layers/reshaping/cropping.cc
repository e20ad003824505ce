#include "layers/reshaping/cropping.h"

#include "layers/reshaping/zero_padding.h"

namespace strata::layers {

Cropping1D::Cropping1D(IntPair cropping, CroppingOptions o)
    : Layer(std::make_shared<SpatialPadImpl>("Cropping1D", true, 1, Padding2D(0, cropping), "", o.name)) {}
Cropping2D::Cropping2D(Padding2D cropping, CroppingOptions o)
    : Layer(std::make_shared<SpatialPadImpl>("Cropping2D", true, 2, cropping, o.data_format, o.name)) {}

namespace {
// 1-D: an int or (before, after), channels_last only. 2-D: an int, (rows, cols) symmetric
// amounts, or ((top, bottom), (left, right)), the form Keras writes.
IntPair amounts_1d(const SpatialPadImpl& l) { return l.amounts.cols; }
CroppingOptions options_1d(const SpatialPadImpl&) { return {}; }
CroppingOptions options_2d(const SpatialPadImpl& l) { return {.data_format = l.data_format}; }

const bool registered = [] {
  register_keras_class(describe_layer<Cropping1D>(
      "Cropping1D", options_1d, std::tuple{keras_refused("data_format", "\"channels_last\"").unwritten().because("1-D layers are channels_last")},
      keras_field("cropping", amounts_1d).at_least(0)));
  register_keras_class(describe_layer<Cropping2D>(
      "Cropping2D", options_2d, keras_field("cropping", &SpatialPadImpl::amounts, Spelling::pairs).at_least(0)));
  return true;
}();
}  // namespace

}  // namespace strata::layers
