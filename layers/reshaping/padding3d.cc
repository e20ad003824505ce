#include "layers/reshaping/padding3d.h"

#include "core/error.h"
#include "core/ops/array_ops.h"

namespace strata::layers {

Pad3DImpl::Pad3DImpl(std::string class_name, bool remove_, Padding3D amounts_, ZeroPadding3DOptions options_)
    : LayerImpl(class_name, options_.name), remove(remove_), amounts(amounts_), options(std::move(options_)) {
  for (auto v : amounts.vec()) {
    if (v < 0) throw ValueError(class_name + ": amounts must be non-negative");
  }
  is_channels_first(options.data_format);
}

std::vector<Output> Pad3DImpl::call(Graph&, const std::vector<Output>& inputs) {
  const Output& x = inputs[0];
  const bool cf = is_channels_first(options.data_format);
  if (x.shape().rank() != 5) {
    throw ShapeError(std::string("expects input of rank 5 ") +
                     (cf ? "(batch, channels, depth, rows, cols)" : "(batch, depth, rows, cols, channels)") +
                     ", got " + x.shape().to_string());
  }
  std::vector<std::int64_t> before(5, 0), after(5, 0);
  const std::vector<std::int64_t> v = amounts.vec();
  const int first = cf ? 2 : 1;
  for (int a = 0; a < 3; ++a) {
    before[first + a] = v[2 * a], after[first + a] = v[2 * a + 1];
    const std::int64_t size = x.shape()[first + a];
    if (remove && size != kUnknownDim && v[2 * a] + v[2 * a + 1] >= size) {
      throw ShapeError("cannot crop " + std::to_string(v[2 * a]) + " + " + std::to_string(v[2 * a + 1]) +
                       " elements from an axis of " + std::to_string(size) + " (input " + x.shape().to_string() + ")");
    }
  }
  return {remove ? ops::crop(x, before, after) : ops::pad(x, before, after)};
}

ZeroPadding3D::ZeroPadding3D(Padding3D padding, ZeroPadding3DOptions o)
    : Layer(std::make_shared<Pad3DImpl>("ZeroPadding3D", false, padding, std::move(o))) {}
Cropping3D::Cropping3D(Padding3D cropping, Cropping3DOptions o)
    : Layer(std::make_shared<Pad3DImpl>("Cropping3D", true, cropping, std::move(o))) {}

namespace {
// An int, (depth, rows, cols) symmetric amounts, or ((front, back), (top, bottom), (left,
// right)), the form Keras writes.
const bool registered = [] {
  register_keras_class(describe_layer<ZeroPadding3D>(
      "ZeroPadding3D", &Pad3DImpl::options, keras_field("padding", &Pad3DImpl::amounts, Spelling::pairs).at_least(0)));
  register_keras_class(describe_layer<Cropping3D>(
      "Cropping3D", &Pad3DImpl::options, keras_field("cropping", &Pad3DImpl::amounts, Spelling::pairs).at_least(0)));
  return true;
}();
}  // namespace

}  // namespace strata::layers
