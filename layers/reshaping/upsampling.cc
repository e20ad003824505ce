#include "layers/reshaping/upsampling.h"

#include "core/error.h"
#include "core/ops.h"
#include "core/ops/pool_ops.h"

namespace strata::layers {

UpSamplingImpl::UpSamplingImpl(std::string class_name, int spatial_rank_, IntPair size_, std::string data_format_,
                               std::string name_)
    : LayerImpl(class_name, std::move(name_)), spatial_rank(spatial_rank_), size(size_),
      data_format(std::move(data_format_)) {
  if (size.first <= 0 || size.second <= 0) throw ValueError(class_name + ": size must be positive");
  is_channels_first(data_format);
}

std::vector<Output> UpSamplingImpl::call(Graph&, const std::vector<Output>& inputs) {
  const bool cf = is_channels_first(data_format);
  expect_spatial_input(inputs[0], spatial_rank + 2, spatial_rank == 1 ? "(batch, steps, features)" : "");
  Output x = cf ? to_channels_last(inputs[0]) : inputs[0];
  if (spatial_rank == 1) {
    Output y = ops::upsample_nearest2d(ops::reshape(x, {-1, x.shape()[1], 1, x.shape()[2]}), {size.first, 1});
    return {ops::reshape(y, {-1, y.shape()[1], y.shape()[3]})};
  }
  Output y = ops::upsample_nearest2d(x, size.vec());
  return {cf ? to_channels_first(y) : y};
}

UpSampling1D::UpSampling1D(std::int64_t size, UpSampling1DOptions o)
    : Layer(std::make_shared<UpSamplingImpl>("UpSampling1D", 1, IntPair(size, 1), "", o.name)) {}
UpSampling2D::UpSampling2D(IntPair size, UpSampling2DOptions o)
    : Layer(std::make_shared<UpSamplingImpl>("UpSampling2D", 2, size, o.data_format, o.name)) {
  if (o.interpolation != "nearest") {
    throw NotImplementedError("UpSampling2D: interpolation '" + o.interpolation + "' is not supported (only 'nearest')");
  }
}

namespace {
// 1-D size is written as an int; 2-D's interpolation is only "nearest" (also Keras 2.0's
// default when absent).
const bool registered = [] {
  register_keras_class(describe_layer<UpSampling1D>(
      "UpSampling1D", +[](const UpSamplingImpl&) { return UpSampling1DOptions{}; },
      keras_field("size", +[](const UpSamplingImpl& l) { return l.size.first; }, Spelling::unwrap1)
          .at_least(1)));
  register_keras_class(describe_layer<UpSampling2D>(
      "UpSampling2D",
      +[](const UpSamplingImpl& l) { return UpSampling2DOptions{.data_format = l.data_format}; },
      keras_field("size", &UpSamplingImpl::size).at_least(1)));
  return true;
}();
}  // namespace

}  // namespace strata::layers
