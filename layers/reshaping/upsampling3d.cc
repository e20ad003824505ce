#include "layers/reshaping/upsampling3d.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/pool_ops.h"

namespace strata::layers {

UpSampling3DImpl::UpSampling3DImpl(IntTriple size_, UpSampling3DOptions options_)
    : LayerImpl("UpSampling3D", options_.name), size(size_), options(std::move(options_)) {
  for (auto v : size.vec()) {
    if (v <= 0) throw ValueError("UpSampling3D: size must be positive");
  }
  is_channels_first(options.data_format);
}

std::vector<Output> UpSampling3DImpl::call(Graph&, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(options.data_format);
  expect_spatial_input(inputs[0], 5, cf ? "(batch, channels, depth, rows, cols)" : "(batch, depth, rows, cols, channels)");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  const std::int64_t d = x.shape()[1], h = x.shape()[2], w = x.shape()[3], c = x.shape()[4];
  // (depth, rows) with (cols · channels) as the channels, then cols.
  Output y = ops::upsample_nearest2d(ops::reshape(x, {-1, d, h, w * c}), {size.first, size.second});
  y = ops::upsample_nearest2d(ops::reshape(y, {-1, h * size.second, w, c}), {1, size.third});
  y = ops::reshape(y, {-1, d * size.first, h * size.second, w * size.third, c});
  return {cf ? to_channels_first(y) : y};
}

UpSampling3D::UpSampling3D(IntTriple size, UpSampling3DOptions o)
    : Layer(std::make_shared<UpSampling3DImpl>(size, std::move(o))) {}

namespace {
const bool registered = register_keras_class(describe_layer<UpSampling3D>(
    "UpSampling3D", &UpSampling3DImpl::options, keras_field("size", &UpSampling3DImpl::size).at_least(1)));
}  // namespace

}  // namespace strata::layers
