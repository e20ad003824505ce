#include "layers/cropping.h"

#include "layers/zero_padding.h"

namespace strata::layers {

Cropping1D::Cropping1D(IntPair cropping, CroppingOptions o)
    : Layer(std::make_shared<SpatialPadImpl>("Cropping1D", true, 1, Padding2D(0, cropping), "", o.name)) {}
Cropping2D::Cropping2D(Padding2D cropping, CroppingOptions o)
    : Layer(std::make_shared<SpatialPadImpl>("Cropping2D", true, 2, cropping, o.data_format, o.name)) {}

}  // namespace strata::layers
